"""``check_submission``: the public checks, run the way the grader runs the hidden ones.

The submission is imported in the sandboxed worker (so an infinite loop times out
instead of hanging the student's terminal); the public tests come from the release in
``assignments/<id>/``, not from the student's folder.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from autograder.config import Course
from autograder.errors import GraderError
from autograder.grade.run import run_on_submission
from autograder.paths import ASSIGNMENTS_DIR, NOT_SUBMISSIONS, public_tests_name
from autograder.scoring import QuestionScore, score_questions


#: What the summary says about the grade: the public checks are a sample, the hidden tests are broader.
HIDDEN_TESTS_NOTE = (
    "The grade comes from the hidden tests, which are broader: new random inputs on every run "
    "(other shapes, batch sizes, masks, dtypes, large scores), so passing these checks does not guarantee full marks."
)
#: Indent of every line of a failure message after its first (none can pass for a check line).
MESSAGE_INDENT = " " * 12


@dataclass(frozen=True)
class CheckReport:
    """Public-check results of one submission."""

    assignment_id: str
    origin: str
    questions: tuple[QuestionScore, ...]
    load_error: str | None
    elapsed: float

    @property
    def score(self) -> float:
        return sum(q.score for q in self.questions)

    @property
    def max_score(self) -> float:
        return sum(q.points for q in self.questions)


def public_test_file(course: Course, assignment_id: str, releases_dir: Path = ASSIGNMENTS_DIR) -> Path:
    """The release's public test file.

    Raises
    ------
    GraderError
        When the release has not been built.
    """
    assignment = course.assignment(assignment_id)
    path = releases_dir / assignment.id / public_tests_name(assignment.module)
    if not path.is_file():
        raise GraderError(f"{path} is missing: run `attn-course build {assignment.id}` first")
    return path


def check_submission(course: Course, assignment_id: str, path: Path, releases_dir: Path = ASSIGNMENTS_DIR) -> CheckReport:
    """Run the public checks of ``assignment_id`` on the submission at ``path``."""
    started = time.perf_counter()
    assignment = course.assignment(assignment_id)
    tests = public_test_file(course, assignment_id, releases_dir)
    run = run_on_submission(
        course, assignment, Path(path), [tests], show_assertions=True, exclude=NOT_SUBMISSIONS, releases_dir=releases_dir
    )
    questions = tuple(score_questions(assignment, run.results))
    return CheckReport(assignment.id, run.origin, questions, run.load_error, time.perf_counter() - started)


def format_check(report: CheckReport) -> str:
    """One line per question, then what to fix."""
    lines = [f"Public checks of {report.assignment_id} on {report.origin}"]
    if report.load_error:
        lines.append(f"Could not load your code: {report.load_error}")
    for q in report.questions:
        status = "pass" if q.tests and not q.failed_tests else "FAIL"
        lines.append(f"  {status}  Q{q.number} {q.function:<30} {q.score:g}/{q.points:g} points  ({q.passed}/{len(q.tests)} checks)")
        lines += [f"          - {t.message}".replace("\n", "\n" + MESSAGE_INDENT) for t in q.failed_tests]
    lines.append(f"{report.score:g}/{report.max_score:g} points on the public checks ({report.elapsed:.2f} s).")
    lines.append(HIDDEN_TESTS_NOTE)
    return "\n".join(lines)
