"""The held-out corpus, graded through the real pipeline: bugs written blind to the grader are caught,
named, charged only where they are, and correct code in unusual styles keeps full marks."""

from __future__ import annotations

import pytest
import yaml

from autograder.config import load_course
from tests.benchmarks.scripts import BENCHMARKS, benchmark_script

pytestmark = pytest.mark.slow

HELD_OUT = BENCHMARKS / "heldout_mistakes"
#: Targets of the fairness issue.
NAMED_SHARE = 0.70
CAUGHT_SHARE = 0.95
SEED = 2027


def _coverage_module():
    return benchmark_script("diagnosis_coverage")


@pytest.fixture(scope="module")
def graded():
    coverage = _coverage_module()
    course = load_course()
    manifest = yaml.safe_load((HELD_OUT / "manifest.yml").read_text(encoding="utf-8"))
    labels = {e["file"]: e.get("expected") or {} for e in yaml.safe_load((HELD_OUT / "labels.yml").read_text(encoding="utf-8"))}
    return [(coverage.grade_entry(course, entry, [SEED], HELD_OUT), labels.get(entry["file"], {})) for entry in manifest]


def test_most_blind_written_bugs_are_caught_and_named(graded):
    buggy = [(outcome, function, labels) for outcome, labels in graded for function in outcome.buggy]
    caught = [o for o, f, _ in buggy if o.lost.get(f, 0) > 0]
    named = [o for o, f, labels in buggy if o.diagnoses.get(f, set()) & set(labels.get(f, ()))]
    assert len(caught) >= CAUGHT_SHARE * len(buggy), f"{len(caught)} of {len(buggy)} caught"
    assert len(named) >= NAMED_SHARE * len(buggy), f"{len(named)} of {len(buggy)} named"


def test_no_right_function_loses_points_for_a_bug_elsewhere(graded):
    charged = [(o.file, q) for o, _ in graded for q, lost in o.lost.items() if lost > 0 and q not in o.buggy]
    assert charged == []


def test_correct_code_in_unusual_styles_keeps_full_marks_and_gets_no_diagnosis(graded):
    correct = [o for o, _ in graded if not o.buggy]
    assert correct and all(not any(o.lost.values()) and not any(o.diagnoses.values()) for o in correct)


def test_the_one_bug_report_lines_are_printed_per_assignment_and_counted_as_printed(graded):
    from autograder.grade.api import grade_submission
    from autograder.report.text import to_text

    figures = benchmark_script("coverage_figures")
    outcomes = [outcome for outcome, _ in graded]
    rows = figures.assignment_rows(outcomes, {}, False)
    for assignment, group in figures.by_assignment(outcomes).items():
        median, longest = figures.median_lines(group)
        row = next(row for row in rows if row.split()[0] == assignment)
        assert row.endswith(f"one-bug report lines median {median:g}, longest {longest}")
    entry = next(e for e in yaml.safe_load((HELD_OUT / "manifest.yml").read_text(encoding="utf-8"))
                 if len(e.get("buggy_functions") or ()) == 1)
    result = grade_submission(load_course(), entry["assignment"], HELD_OUT / entry["file"], seed=SEED)
    buggy = set(entry["buggy_functions"])
    text = to_text(result).splitlines()  # what the student reads: the failed question's block as printed
    counted = 0
    for question in (q for q in result.questions if q.function in buggy and q.score < q.points):
        start = next(i for i, line in enumerate(text) if line.startswith("FAIL") and f"Q{question.number} " in line)
        rest = text[start + 1:]
        block = 1 + next((i for i, line in enumerate(rest) if not line.startswith(" ")), len(rest))
        counted += block + any(line.startswith("Tolerance") for line in text)  # the report's tolerance line
    assert counted > 0 and figures.report_lines(result, buggy) == counted
