"""Run a suite against one submission in the sandbox: the sequence ``check`` and ``grade`` share.

Read the files and check their syntax (no code runs; in a forked child given the
submission's time budget, see :mod:`autograder.submission.bounded`), start the sandboxed
worker (the submission is imported there, never here), run the suite with a proxy to the
worker. Every failure of the submission becomes a ``load_error``; only grader failures raise.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from autograder.config import Assignment, Course
from autograder.engine import TestResult, run_suite
from autograder.engine.runner import prepare_suite
from autograder.errors import LoadFailed
from autograder.grade.load_notes import load_notes
from autograder.judge.tolerance import Tolerance
from autograder.mistakes import course_mistakes
from autograder.seeding import Seed, choose_seed
from autograder.grade.static_check import parse_source
from autograder.sandbox.client import SandboxedSubmission
from autograder.submission import SubmissionSource, read_submission
from autograder.submission.bounded import read_bounded, small_input
from autograder.submission.locate import ReleaseStubs, release_stubs, shown
from autograder.submission.spawned import Reading


@dataclass(frozen=True)
class SuiteRun:
    """What running a suite against a submission produced."""

    origin: str
    tree: ast.Module | None = None  # None when the files could not be read or parsed
    load_error: str | None = None
    results: list[TestResult] = field(default_factory=list)
    isolation: str = "not started"
    student_output: str = ""
    load_notes: tuple[str, ...] = ()  # a graded notebook cell that does not parse, statements skipped at import
    real_path: str = ""  # the file checked, as on disk
    seed: Seed | None = None  # the seed the suite drew from, and how it was chosen


def read_and_parse(
    course: Course, assignment: Assignment, path: Path, stubs: ReleaseStubs, exclude: tuple[Path, ...] = (),
) -> tuple[SubmissionSource, ast.Module]:
    """The submission at ``path`` read and parsed, the reading bounded by its time budget (no code runs).

    The child that reads it (:func:`~autograder.submission.bounded.read_bounded`) gets
    ``submission_timeout_s``; once it has parsed the source, the grader's own parse of the
    same source takes as long.

    Raises
    ------
    LoadFailed
        When it cannot be read, is too large, takes too long to read, or does not parse.
    AmbiguousSubmission
        When a person must say which file is the submission.
    """
    if small_input(Path(path)):  # read here, parsed once
        source = read_submission(path, assignment.module, assignment.notebook, assignment.functions, stubs=stubs,
                                 exclude=exclude)
        return source, parse_source(source.source, source.origin)
    read = Reading(Path(path), assignment.module, assignment.notebook, assignment.functions, stubs, exclude)
    source = read_bounded(read, course.defaults.submission_timeout_s, shown(Path(path).name))
    return source, parse_source(source.source, source.origin)


def run_on_submission(
    course: Course, assignment: Assignment, path: Path, test_files: list[Path], *, seed: int | None = 0,
    secret: bytes | None = None,
    show_assertions: bool = False, exclude: tuple[Path, ...] = (), releases_dir: Path | None = None,
    stubs: ReleaseStubs | None = None, upstream: dict[str, tuple[str, ...]] | None = None,
    open_worker: Callable[..., SandboxedSubmission] = SandboxedSubmission,
) -> SuiteRun:
    """Run ``test_files`` against the submission at ``path``, drawing the tests' inputs from ``seed`` (None: derived
    from ``secret`` and the submission's code, or fresh without a secret; see :mod:`autograder.seeding`).

    Which file of a folder or zip is the submission follows
    :func:`autograder.submission.locate.choose`, with the release in ``releases_dir`` (default: the course's)
    telling untouched stubs apart (or ``stubs``, when given); files under ``exclude`` are never picked.
    ``upstream`` is the call graph of the graded functions (error carried forward; see
    :func:`autograder.engine.runner.run_suite`). ``open_worker`` makes the handle on the student's code
    (the sandbox; ``check`` may pass a portable child, see :mod:`autograder.check.runner`).

    Raises
    ------
    GraderError
        When the grader itself cannot run, or (AmbiguousSubmission) when a person must say
        which file is the submission.
    """
    if stubs is None:
        stubs = release_stubs((releases_dir or course.layout.releases) / assignment.id, assignment.module, assignment.notebook, assignment.functions)
    try:
        source, tree = read_and_parse(course, assignment, path, stubs, exclude)
    except LoadFailed as error:
        return SuiteRun(origin=Path(path).name, load_error=error.student_message, seed=choose_seed(seed, None, assignment.id, None))
    chosen = choose_seed(seed, secret, assignment.id, tree)
    tolerance = Tolerance(course.defaults.rtol, course.defaults.atol)
    prepare_suite(test_files)  # the suite's imports overlap the start of a prestarted worker
    with open_worker(source.module_name, source.source, course.defaults, filename=source.origin) as worker:
        try:
            worker.start()
        except LoadFailed as error:
            return SuiteRun(source.origin, tree, error.student_message, [], worker.isolation, worker.captured_output,
                            source.notes, source.real_path, chosen)
        with course_mistakes(course.layout.mistakes):  # the failures are diagnosed with this course's mistakes
            results = run_suite(
                test_files, worker, tolerance, seed=chosen.value, questions=assignment.functions,
                upstream=upstream, show_assertions=show_assertions,
            )
        notes = load_notes(source.notes, worker.skipped, worker.skipped_more)
        return SuiteRun(source.origin, tree, None, results, worker.isolation, worker.captured_output, notes, source.real_path,
                        chosen)
