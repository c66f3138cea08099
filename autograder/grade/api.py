"""``grade_submission``: one submission in, one :class:`GradeResult` out.

The steps, in order: read the files (no code runs), parse and check imports, start the
sandboxed worker (the submission is imported there, never here), run the hidden suite
with a proxy to the worker, score, apply penalties.
"""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

from autograder import __version__
from autograder.config import Assignment, Course
from autograder.engine import run_suite
from autograder.errors import GraderError, LoadFailed
from autograder.grade.compare import Tolerance
from autograder.grade.late import late_fraction
from autograder.grade.result import GradeResult, Penalty
from autograder.grade.static_check import disallowed_imports, parse_source
from autograder.paths import HIDDEN_TESTS_DIR
from autograder.sandbox.client import SandboxedSubmission
from autograder.scoring import SCORE_DECIMALS, apply_penalties, score_questions
from autograder.submission import read_submission


def hidden_test_files(assignment: Assignment, tests_dir: Path = HIDDEN_TESTS_DIR) -> list[Path]:
    """The hidden suite of an assignment.

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


def _penalties(course: Course, assignment: Assignment, violations, submitted_at) -> tuple[list[Penalty], int]:
    penalties = []
    if violations:
        names = ", ".join(f"{v.module} (line {v.line})" for v in violations)
        penalties.append(Penalty(f"imports outside the allowed list: {names}", course.defaults.disallowed_import_penalty))
    days, fraction = late_fraction(assignment.due, submitted_at, course.late_policy)
    if fraction:
        penalties.append(Penalty(f"{days} day(s) late", fraction))
    return penalties, days


def grade_submission(
    course: Course,
    assignment_id: str,
    path: Path,
    *,
    submitted_at: dt.datetime | None = None,
    tests_dir: Path = HIDDEN_TESTS_DIR,
) -> GradeResult:
    """Grade the submission at ``path`` against the hidden suite of ``assignment_id``.

    Raises
    ------
    GraderError
        Only when the grader itself cannot run; every problem of the submission
        becomes part of the result instead.
    """
    started = time.perf_counter()
    assignment = course.assignment(assignment_id)
    test_files = hidden_test_files(assignment, tests_dir)
    origin = Path(path).name
    try:
        source = read_submission(Path(path), assignment.module, assignment.notebook, assignment.functions)
        origin = source.origin
        tree = parse_source(source.source, source.origin)
    except LoadFailed as error:
        return _not_loaded(assignment, origin, error.student_message, started)
    violations = disallowed_imports(tree, course.defaults.allowed_imports)
    violation_names = tuple(v.module for v in violations)
    with SandboxedSubmission(source.module_name, source.source, course.defaults, filename=source.origin) as worker:
        try:
            worker.start()
        except LoadFailed as error:
            return _not_loaded(
                assignment, origin, error.student_message, started,
                isolation=worker.isolation, student_output=worker.captured_output, import_violations=violation_names,
            )
        results = run_suite(test_files, worker, Tolerance(course.defaults.rtol, course.defaults.atol))
        isolation, output = worker.isolation, worker.captured_output
    questions = score_questions(assignment, results)
    raw = round(sum(q.score for q in questions), SCORE_DECIMALS)
    penalties, days = _penalties(course, assignment, violations, submitted_at)
    return GradeResult(
        assignment_id=assignment.id,
        origin=origin,
        questions=tuple(questions),
        max_score=assignment.max_points,
        raw_score=raw,
        score=apply_penalties(raw, [p.fraction for p in penalties]),
        penalties=tuple(penalties),
        import_violations=violation_names,
        isolation=isolation,
        student_output=output,
        execution_time=time.perf_counter() - started,
        grader_version=__version__,
        days_late=days,
    )
