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

from autograder.check.policy import grading_losses
from autograder.check.release import MANIFEST, CannotCheck, Release, course_release
from autograder.check.runner import CheckRunner, check_runner
from autograder.config import Course
from autograder.errors import GraderError
from autograder.report.text import by_message
from autograder.grade.run import run_on_submission
from autograder.i18n import Message, msg, msg_n, render
from autograder.languages import SOURCE_LANGUAGE
from autograder.paths import ASSIGNMENTS_DIR, NOT_SUBMISSIONS, public_tests_name
from autograder.scoring import QuestionScore, score_questions


#: What the summary says about the grade: the public checks are a sample, the hidden tests are broader.
HIDDEN_TESTS_NOTE = msg(
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
    losses: tuple[Message, ...] = ()  # what grading will take off the score (the import policy)

    @property
    def score(self) -> float:
        return sum(q.score for q in self.questions)

    @property
    def max_score(self) -> float:
        return sum(q.points for q in self.questions)

    @property
    def passed(self) -> bool:
        """Every public check ran and passed, and grading takes nothing off (what ``check``'s exit code says)."""
        return self.load_error is None and not self.losses and all(q.tests and not q.failed_tests for q in self.questions)


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
    if path.is_file():
        return path
    if (folder / MANIFEST).is_file():  # a student's assignment folder: the kit cannot rebuild it
        raise CannotCheck(msg("{path} is missing: download the assignment folder again and copy {file} from it into "
                              "this folder", path=str(path), file=path.name))
    raise GraderError(f"{path} is missing: run `attn-course build {assignment.id}` first")


def check_submission(course: Course, assignment_id: str, path: Path, releases_dir: Path = ASSIGNMENTS_DIR,
                     *, release: Release | None = None, runner: CheckRunner | None = None) -> CheckReport:
    """Run the public checks of ``assignment_id`` on the submission at ``path``.

    Parameters
    ----------
    release : Release, optional
        The release to take the public checks and stubs from (see
        :func:`~autograder.check.release.find_release`); by default ``releases_dir/<id>``.
    runner : CheckRunner, optional
        Where the student's code runs (default: :func:`~autograder.check.runner.check_runner`,
        the sandbox when it works here, else a portable child).
    """
    started = time.perf_counter()
    release = release or course_release(course, assignment_id, Path(releases_dir))
    course = release.course
    runner = runner or check_runner(course.defaults)
    assignment = course.assignment(assignment_id)
    tests = _public_tests(release.folder, course, assignment_id)
    run = run_on_submission(
        course, assignment, Path(path), [tests], show_assertions=True, exclude=NOT_SUBMISSIONS, stubs=release.stubs,
        open_worker=runner.submission,
    )
    questions = tuple(score_questions(assignment, run.results))
    notes = (runner.note,) if runner.note is not None else ()
    return CheckReport(assignment.id, run.origin, questions, run.load_error, time.perf_counter() - started,
                       run.real_path, notes + run.load_notes, grading_losses(run.tree, course.defaults))


def _question_line(q: QuestionScore, language: str) -> list[str]:
    status = render(msg("pass") if q.tests and not q.failed_tests else msg("FAIL"), language)
    counts = render(msg("{score}/{points} points  ({passed}/{total} checks)", score=f"{q.score:g}", points=f"{q.points:g}",
                        passed=str(q.passed), total=str(len(q.tests))), language)
    lines = [f"  {status}  Q{q.number} {q.function:<30} {counts}"]
    for message, tests in by_message(q.failed_tests).items():
        line = msg_n("{n} check: {message}", "{n} checks: {message}", len(tests), message=message) if len(tests) > 1 else message
        lines.append(f"          - {render(line, language)}".replace("\n", "\n" + MESSAGE_INDENT))
    return lines


def format_check(report: CheckReport, language: str = SOURCE_LANGUAGE) -> str:
    """One line per question, identical failures grouped, then what to fix; in ``language``."""
    lines = [render(msg("Public checks of {assignment} on {path}", assignment=report.assignment_id,
                        path=report.path or report.origin), language)]
    if report.load_error:
        lines.append(render(msg("Could not load your code: {error}", error=report.load_error), language))
    lines += [render(note, language).replace("\n", "\n" + MESSAGE_INDENT) for note in report.notes]
    for q in report.questions:
        lines += _question_line(q, language)
    lines += [f"  {render(msg('FAIL'), language)}  {render(loss, language)}" for loss in report.losses]
    lines.append(render(msg("{score}/{max_score} points on the public checks ({seconds} s).", score=f"{report.score:g}",
                            max_score=f"{report.max_score:g}", seconds=f"{report.elapsed:.2f}"), language))
    lines.append(render(HIDDEN_TESTS_NOTE, language))
    return "\n".join(lines)


def short_summary(report: CheckReport, language: str = SOURCE_LANGUAGE) -> str:
    """The one line ``check --quiet`` prints: the points on the public checks."""
    return render(msg("{score}/{max_score} points on the public checks of {assignment}", score=f"{report.score:g}",
                      max_score=f"{report.max_score:g}", assignment=report.assignment_id), language)


def check_dict(report: CheckReport, language: str = SOURCE_LANGUAGE) -> dict:
    """The report as plain JSON data: every question, its checks, and the grouped failures (messages in ``language``)."""
    return {
        "assignment": report.assignment_id,
        "path": report.path or report.origin,
        "passed": report.passed,
        "score": report.score,
        "max_score": report.max_score,
        "load_error": render(report.load_error, language) if report.load_error else report.load_error,
        "notes": [render(note, language) for note in report.notes],
        "losses_at_grading": [render(loss, language) for loss in report.losses],
        "questions": [
            {
                "number": q.number, "function": q.function, "score": q.score, "max_score": q.points,
                "checks": len(q.tests), "passed": q.passed,
                "failures": [{"message": render(message, language), "checks": [t.name for t in tests]}
                             for message, tests in by_message(q.failed_tests).items()],
            }
            for q in report.questions
        ],
        "elapsed": round(report.elapsed, 3),
    }


def format_check_json(report: CheckReport, language: str = SOURCE_LANGUAGE) -> str:
    return json.dumps(check_dict(report, language), indent=2, ensure_ascii=False) + "\n"
