"""``check_submission``: the public checks, run the way the grader runs the hidden ones.

The submission is imported in the sandboxed worker (so an infinite loop times out
instead of hanging the student's terminal); the public tests come from the release (see
:mod:`autograder.check.release`): the student's own assignment folder, or the course's
``assignments/<id>/``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from autograder.check.release import Release, course_release
from autograder.config import Course
from autograder.errors import GraderError
from autograder.grade.report import by_message
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
    path: str = ""  # the file checked, as on disk
    notes: tuple[str, ...] = ()  # how it was loaded (a graded cell that does not parse, statements skipped)

    @property
    def score(self) -> float:
        return sum(q.score for q in self.questions)

    @property
    def max_score(self) -> float:
        return sum(q.points for q in self.questions)

    @property
    def passed(self) -> bool:
        """Every public check ran and passed (what ``check``'s exit code says)."""
        return self.load_error is None and all(q.tests and not q.failed_tests for q in self.questions)


def public_test_file(course: Course, assignment_id: str, releases_dir: Path = ASSIGNMENTS_DIR) -> Path:
    """The public test file of the release in ``releases_dir``.

    Raises
    ------
    GraderError
        When the release has not been built.
    """
    return _public_tests(Path(releases_dir) / course.assignment(assignment_id).id, course, assignment_id)


def _public_tests(folder: Path, course: Course, assignment_id: str) -> Path:
    assignment = course.assignment(assignment_id)
    path = folder / public_tests_name(assignment.module)
    if not path.is_file():
        raise GraderError(f"{path} is missing: run `attn-course build {assignment.id}` first")
    return path


def check_submission(course: Course, assignment_id: str, path: Path, releases_dir: Path = ASSIGNMENTS_DIR,
                     *, release: Release | None = None) -> CheckReport:
    """Run the public checks of ``assignment_id`` on the submission at ``path``.

    Parameters
    ----------
    release : Release, optional
        The release to take the public checks and stubs from (see
        :func:`~autograder.check.release.find_release`); by default ``releases_dir/<id>``.
    """
    started = time.perf_counter()
    release = release or course_release(course, assignment_id, Path(releases_dir))
    course = release.course
    assignment = course.assignment(assignment_id)
    tests = _public_tests(release.folder, course, assignment_id)
    run = run_on_submission(
        course, assignment, Path(path), [tests], show_assertions=True, exclude=NOT_SUBMISSIONS, stubs=release.stubs,
    )
    questions = tuple(score_questions(assignment, run.results))
    return CheckReport(assignment.id, run.origin, questions, run.load_error, time.perf_counter() - started,
                       run.real_path, run.load_notes)


def _question_line(q: QuestionScore) -> list[str]:
    status = "pass" if q.tests and not q.failed_tests else "FAIL"
    lines = [f"  {status}  Q{q.number} {q.function:<30} {q.score:g}/{q.points:g} points  ({q.passed}/{len(q.tests)} checks)"]
    for message, tests in by_message(q.failed_tests).items():
        count = f"{len(tests)} checks: " if len(tests) > 1 else ""
        lines.append(f"          - {count}{message}".replace("\n", "\n" + MESSAGE_INDENT))
    return lines


def format_check(report: CheckReport) -> str:
    """One line per question, identical failures grouped, then what to fix."""
    lines = [f"Public checks of {report.assignment_id} on {report.path or report.origin}"]
    if report.load_error:
        lines.append(f"Could not load your code: {report.load_error}")
    lines += [note.replace("\n", "\n" + MESSAGE_INDENT) for note in report.notes]
    for q in report.questions:
        lines += _question_line(q)
    lines.append(f"{report.score:g}/{report.max_score:g} points on the public checks ({report.elapsed:.2f} s).")
    lines.append(HIDDEN_TESTS_NOTE)
    return "\n".join(lines)


def check_dict(report: CheckReport) -> dict:
    """The report as plain JSON data: every question, its checks, and the grouped failures."""
    return {
        "assignment": report.assignment_id,
        "path": report.path or report.origin,
        "passed": report.passed,
        "score": report.score,
        "max_score": report.max_score,
        "load_error": report.load_error,
        "notes": list(report.notes),
        "questions": [
            {
                "number": q.number, "function": q.function, "score": q.score, "max_score": q.points,
                "checks": len(q.tests), "passed": q.passed,
                "failures": [{"message": message, "checks": [t.name for t in tests]}
                             for message, tests in by_message(q.failed_tests).items()],
            }
            for q in report.questions
        ],
        "elapsed": round(report.elapsed, 3),
    }


def format_check_json(report: CheckReport) -> str:
    return json.dumps(check_dict(report), indent=2, ensure_ascii=False) + "\n"
