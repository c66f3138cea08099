"""The GitHub Actions grading step's report: job summary, step outputs and results.json, from one record.

``python -m autograder.export.actions_report RECORD --results results.json`` reads the
canonical result record ``attn-course grade --format json`` wrote, and writes from it: a
Markdown table per question with its diagnoses to ``$GITHUB_STEP_SUMMARY``, ``score``,
``max_score``, ``diagnoses`` and ``classroom`` (GitHub Classroom's ``<ID>_RESULTS``, see
:mod:`autograder.export.classroom`) to ``$GITHUB_OUTPUT``, and the student's results.json (the
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

from autograder.escape import MARKDOWN_LINE_BREAK, markdown, markdown_code, terminal_text
from autograder.grade.record import from_record
from autograder.report.formats import FORMATS
from autograder.report.text import question_feedback
from autograder.grade.result import GradeResult
from autograder.i18n import msg, render
from autograder.languages import KNOWN_LANGUAGES, SOURCE_LANGUAGE
from autograder.scoring import QuestionScore
from autograder.student_text import clean_name

#: The registered report format students receive as results.json.
RESULTS_FORMAT = next(f for f in FORMATS.values() if f.feedback_file == "results.json")
SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
OUTPUT_ENV = "GITHUB_OUTPUT"
#: Characters of one text (a traceback, a message) the summary keeps, its end: GitHub refuses a summary over
#: 1 MiB, and a text's Markdown is at most 4 times its length (``<br>`` per line), so 30 failure lines fit in 0.5 MiB.
SUMMARY_TEXT_CHARS = 4000
#: What stands for the start of a text cut to its end (results.json and the text report keep the whole).
CUT = "…"


def _summary_text(text: str) -> str:
    """One text (a fact or a template's piece) as Markdown, cut to its last :data:`SUMMARY_TEXT_CHARS` characters."""
    return markdown(text if len(text) <= SUMMARY_TEXT_CHARS else CUT + text[-SUMMARY_TEXT_CHARS:])


def _say(text, language: str) -> str:
    """A catalog message (or text) in ``language`` as Markdown: the template's text and each fact escaped apart."""
    return render(text, language, _summary_text)


def _header_row(language: str) -> str:
    names = [msg("Question"), msg("Function"), msg("Score"), msg("Tests passed"), msg("Feedback")]
    return "| " + " | ".join(_say(name, language) for name in names) + " |"


def _question_row(question: QuestionScore, language: str) -> str:
    lines = question_feedback(question, language, _summary_text, verbose=True)
    feedback = MARKDOWN_LINE_BREAK.join(lines) if lines else _say(msg("all tests passed"), language)
    return (f"| Q{question.number} | {markdown_code(question.function)} | {question.score:g} / {question.points:g} "
            f"| {question.passed}/{len(question.tests)} | {feedback} |")


def summary_markdown(result: GradeResult, language: str = SOURCE_LANGUAGE) -> str:
    """The job summary in ``language``: the score, then one row per question with what failed and the likely bugs.

    Every text, the student's above all (messages, tracebacks, names), is Markdown that
    shows it as it is (:func:`autograder.escape.markdown`): no tag, link, image or table
    cell can come out of it. A text longer than :data:`SUMMARY_TEXT_CHARS` shows its end.

    Parameters
    ----------
    result : GradeResult
        The graded submission.
    language : str, optional
        The language of the summary.

    Returns
    -------
    str
        GitHub-flavoured Markdown, ending with a newline.
    """
    lines = [f"## {markdown(result.assignment_id)}: {result.score:g} / {result.max_score:g}", ""]
    if result.load_error:
        lines += [f"**{_say(msg('Not graded:'), language)}** {_say(result.load_error, language)}", ""]
    lines += ["- " + _say(msg("penalty: {percent} for {reason}", percent=f"{p.fraction:.0%}", reason=p.reason), language)
              for p in result.penalties]
    lines += ["", _header_row(language), "| --- | --- | --- | --- | --- |"]
    lines += [_question_row(q, language) for q in result.questions]
    return "\n".join(lines) + "\n"


def step_outputs(result: GradeResult) -> dict[str, str]:
    """The step's outputs (``key=value`` lines of ``$GITHUB_OUTPUT``): every value one line."""
    diagnoses = ",".join(clean_name(bug) for bug in result.diagnoses)  # one line: no value can add an output
    return {"score": f"{result.score:g}", "max_score": f"{result.max_score:g}", "diagnoses": diagnoses}


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
    from autograder.export.classroom import encoded_results

    outputs = {**step_outputs(result), "classroom": encoded_results(result, options.lang)}
    _append(OUTPUT_ENV, "".join(f"{key}={value}\n" for key, value in outputs.items()))
    print(f"{terminal_text(result.assignment_id)}: {result.score:g} / {result.max_score:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
