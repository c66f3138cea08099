"""The GitHub Actions grading step's report: job summary, step outputs and results.json, from one record.

``python -m autograder.export.actions_report RECORD --results results.json`` reads the
canonical result record ``attn-course grade --format json`` wrote, and writes from it: a
Markdown table per question with its diagnoses to ``$GITHUB_STEP_SUMMARY``, ``score``,
``max_score`` and ``diagnoses`` to ``$GITHUB_OUTPUT``, and the student's results.json (the
report format whose feedback file it is, from the one registry of formats), the summary and
results.json in ``--lang`` (default English). The record keeps the run's seed; the summary
and results.json do not show it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from autograder.grade.record import from_record
from autograder.grade.formats import FORMATS
from autograder.grade.report import question_feedback
from autograder.grade.result import GradeResult
from autograder.i18n import msg, render
from autograder.languages import KNOWN_LANGUAGES, SOURCE_LANGUAGE

#: The registered report format students receive as results.json.
RESULTS_FORMAT = next(f for f in FORMATS.values() if f.feedback_file == "results.json")
SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
OUTPUT_ENV = "GITHUB_OUTPUT"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", "<br>")


def _header_row(language: str) -> str:
    names = [msg("Question"), msg("Function"), msg("Score"), msg("Tests passed"), msg("Feedback")]
    return "| " + " | ".join(_cell(render(name, language)) for name in names) + " |"


def summary_markdown(result: GradeResult, language: str = SOURCE_LANGUAGE) -> str:
    """The job summary in ``language``: the score, then one row per question with what failed and the likely bugs."""
    lines = [f"## {result.assignment_id}: {result.score:g} / {result.max_score:g}", ""]
    if result.load_error:
        lines += [f"**{render(msg('Not graded:'), language)}** {_cell(render(result.load_error, language))}", ""]
    lines += ["- " + _cell(render(msg("penalty: {percent} for {reason}", percent=f"{p.fraction:.0%}", reason=p.reason), language))
              for p in result.penalties]
    lines += ["", _header_row(language), "| --- | --- | --- | --- | --- |"]
    for q in result.questions:
        feedback = "<br>".join(_cell(line) for line in question_feedback(q, language)) \
            or render(msg("all tests passed"), language)
        lines.append(f"| Q{q.number} | `{q.function}` | {q.score:g} / {q.points:g} | {q.passed}/{len(q.tests)} | {feedback} |")
    return "\n".join(lines) + "\n"


def step_outputs(result: GradeResult) -> dict[str, str]:
    """The step's outputs (``key=value`` lines of ``$GITHUB_OUTPUT``)."""
    return {"score": f"{result.score:g}", "max_score": f"{result.max_score:g}", "diagnoses": ",".join(result.diagnoses)}


def _append(variable: str, text: str) -> None:
    path = os.environ.get(variable)
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)


def main(argv: list[str] | None = None) -> int:
    """Write the summary, the outputs and results.json from a result record."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("record", type=Path)
    parser.add_argument("--results", type=Path, default=Path("results.json"))
    parser.add_argument("--lang", choices=list(KNOWN_LANGUAGES), default=SOURCE_LANGUAGE,
                        help="the language of the job summary and results.json")
    options = parser.parse_args(argv)
    result = from_record(json.loads(options.record.read_text(encoding="utf-8")))
    options.results.write_text(RESULTS_FORMAT.render(result, options.lang), encoding="utf-8")
    _append(SUMMARY_ENV, summary_markdown(result, options.lang))
    _append(OUTPUT_ENV, "".join(f"{key}={value}\n" for key, value in step_outputs(result).items()))
    print(f"{result.assignment_id}: {result.score:g} / {result.max_score:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
