"""``grade_submission``: one submission in, one :class:`GradeResult` out.

The steps, in order: run the hidden suite against the submission in the sandbox
(:func:`autograder.grade.run.run_on_submission`), check its imports, score, apply penalties.
"""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

from autograder import __version__
from autograder.config import Assignment, Course
from autograder.errors import GraderError
from autograder.grade.carry import call_graph
from autograder.grade.late import late_fraction
from autograder.grade.result import GradeResult, Penalty
from autograder.grade.run import run_on_submission
from autograder.grade.static_check import OUTSIDE_ALLOWED, policy_violations
from autograder.grade.submitted import SubmissionTime, TimeSource
from autograder.i18n import Message, joined, msg
from autograder.paths import HIDDEN_TESTS_DIR
from autograder.scoring import SCORE_DECIMALS, apply_penalties, score_questions
from autograder.seeding import course_secret


def hidden_test_files(assignment: Assignment, tests_dir: Path = HIDDEN_TESTS_DIR) -> list[Path]:
    """The hidden suite of an assignment, in ``tests_dir`` (default: this project's course's).

    Raises
    ------
    GraderError
        When the assignment has no hidden tests (the grader cannot run).
    """
    files = sorted((tests_dir / assignment.id).glob("test_*.py"))
    if not files:
        raise GraderError(f"no hidden tests for {assignment.id} in {tests_dir / assignment.id}")
    return files


def _not_loaded(assignment: Assignment, origin: str, message: str, started: float, **extra) -> GradeResult:
    questions = tuple(score_questions(assignment, []))
    return GradeResult(
        assignment_id=assignment.id,
        origin=origin,
        questions=questions,
        max_score=assignment.max_points,
        raw_score=0.0,
        score=0.0,
        load_error=message,
        execution_time=time.perf_counter() - started,
        grader_version=__version__,
        **extra,
    )


def policy_reason(violations) -> Message:
    """Why the policy penalty applies: the disallowed imports, then each construct and what it does."""
    imports = [msg("{module} (line {line})", module=v.module, line=str(v.line)) for v in violations if v.reason == OUTSIDE_ALLOWED]
    parts = [msg("imports outside the allowed list: {modules}", modules=joined(imports, ", "))] if imports else []
    parts += [msg("{module} (line {line}) {reason}", module=v.module, line=str(v.line), reason=Message(v.reason))
              for v in violations if v.reason != OUTSIDE_ALLOWED]
    return joined(parts)


def _penalties(course: Course, assignment: Assignment, violations, submitted_at) -> tuple[list[Penalty], int]:
    penalties = []
    if violations:
        penalties.append(Penalty(policy_reason(violations), course.defaults.disallowed_import_penalty))
    days, fraction = late_fraction(assignment.due, submitted_at, course.late_policy)
    if fraction:
        penalties.append(Penalty(msg("{days} day(s) late", days=str(days)), fraction))
    return penalties, days


def grade_submission(
    course: Course,
    assignment_id: str,
    path: Path,
    *,
    submitted_at: dt.datetime | None = None,
    submitted: SubmissionTime | None = None,
    tests_dir: Path | None = None,
    seed: int | None = None,
) -> GradeResult:
    """Grade the submission at ``path`` against the hidden suite of ``assignment_id``.

    The hidden tests draw their inputs from ``seed``; when None, from a seed derived from the course's
    secret and the submission's normalised code (the same code, the same grade; a fresh seed for a
    course without a secret, see :mod:`autograder.seeding`). The result keeps the seed and how it was
    chosen, so the instructor can replay the run exactly. Students never see it.

    Parameters
    ----------
    submitted_at : datetime, optional
        When it was handed in, as given by ``--submitted-at``.
    submitted : SubmissionTime, optional
        When it was handed in and who says so (instead of ``submitted_at``). Without
        either, no late penalty applies.
    tests_dir : Path, optional
        The folder of hidden suites (default: the course's, :attr:`~autograder.layout.CourseDirectory.hidden_tests`).
    seed : int, optional
        The run's seed (derived, or fresh, when None).

    Raises
    ------
    GraderError
        Only when the grader itself cannot run; every problem of the submission
        becomes part of the result instead.
    """
    started = time.perf_counter()
    when = submitted or SubmissionTime(submitted_at, TimeSource.OPTION if submitted_at else TimeSource.NONE)
    times = {"submitted_at": when.at.isoformat() if when.at else None, "submitted_at_source": when.source}
    assignment = course.assignment(assignment_id)
    secret = course_secret(course.layout.course_file) if seed is None else None
    suite = hidden_test_files(assignment, tests_dir or course.layout.hidden_tests)
    run = run_on_submission(course, assignment, Path(path), suite, seed=seed, secret=secret,
                            upstream=call_graph(assignment.functions))
    violations = policy_violations(run.tree, course.defaults.allowed_imports) if run.tree is not None else []
    violation_names = tuple(v.module for v in violations)
    if run.load_error is not None:
        return _not_loaded(
            assignment, run.origin, run.load_error, started,
            isolation=run.isolation, student_output=run.student_output, import_violations=violation_names,
            seed=run.seed.value, seed_source=run.seed.how, load_notes=run.load_notes, **times,
        )
    return _graded(course, assignment, run, violations, when, started, times)


def _graded(course: Course, assignment, run, violations, when: SubmissionTime, started: float, times: dict) -> GradeResult:
    """The result of a submission that loaded: its questions scored, the penalties applied."""
    questions = score_questions(assignment, run.results)
    raw = round(sum(q.score for q in questions), SCORE_DECIMALS)
    penalties, days = _penalties(course, assignment, violations, when.at)
    return GradeResult(
        assignment_id=assignment.id,
        origin=run.origin,
        questions=tuple(questions),
        max_score=assignment.max_points,
        raw_score=raw,
        score=apply_penalties(raw, [p.fraction for p in penalties]),
        penalties=tuple(penalties),
        import_violations=tuple(v.module for v in violations),
        isolation=run.isolation,
        student_output=run.student_output,
        execution_time=time.perf_counter() - started,
        grader_version=__version__,
        days_late=days, seed=run.seed.value, seed_source=run.seed.how, load_notes=run.load_notes, **times,
    )
