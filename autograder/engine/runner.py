"""Run a suite of pytest files against one submission: directly when it can, through pytest otherwise."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path

from collections.abc import Mapping

from autograder.engine.carried import in_dependency_order, settle
from autograder.engine.direct import Case, Unsupported, plan, run_planned
from autograder.engine.outcome import QUESTION_MARKER, question_of
from autograder.engine.results import TestResult
from autograder.engine.subject import Subject
from autograder.errors import GraderError


@contextmanager
def importable(folder: Path):
    """Let the suite's files import their neighbours (e.g. ``checklib``) while it runs."""
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        sys.path.remove(str(folder))


def run_suite(
    test_files: list[Path], submission, tolerance, *, seed: int = 0, questions: tuple[str, ...] = (),
    upstream: Mapping[str, tuple[str, ...]] | None = None, show_assertions: bool = False, use_pytest: bool = False,
) -> list[TestResult]:
    """Run the tests in ``test_files`` against ``submission``.

    Suites are plain pytest files; those using only the engine's fixtures and marks are called directly
    (:mod:`autograder.engine.direct`, no pytest start-up), any other through ``pytest.main`` with the same
    node ids, draws and results.

    Parameters
    ----------
    test_files : list of Path
        Pytest files, all in one folder.
    submission : object
        What calls the student's functions (a sandbox proxy, or a trusted in-process
        double); tests receive it wrapped in a :class:`~autograder.engine.subject.Subject`.
    tolerance : object
        What the ``tol`` fixture returns.
    seed : int
        The run's seed: every ``draw`` fixture derives its inputs from it.
    questions : tuple of str
        The assignment's graded functions (error carried forward leans only on these).
    upstream : mapping of str to tuple of str, optional
        For each graded function, the graded functions it calls: their tests run first, and
        a pass carried forward from them counts only when one of them fails a test
        (:mod:`autograder.engine.carried`).
    show_assertions : bool
        Show plain assertion messages to the student (public tests only).
    use_pytest : bool
        Run through ``pytest.main`` even when the direct runner could.

    Returns
    -------
    list of TestResult
        One per test, in run order.

    Raises
    ------
    GraderError
        When the suite cannot run or a test hits a grader error.
    """
    subject = Subject(submission, questions)
    upstream = dict(upstream or {})
    folder = test_files[0].parent
    with importable(folder):
        cases = None if use_pytest else _direct_plan(test_files)
        if cases is None:
            from autograder.engine.pytest_runner import run_with_pytest

            results = run_with_pytest(test_files, subject, tolerance, seed, show_assertions, upstream)
        else:
            cases = in_dependency_order(cases, lambda case: question_of(case.mark(QUESTION_MARKER)), upstream)
            try:
                results = run_planned(cases, subject, tolerance, seed, show_assertions)
            except GraderError as error:
                raise GraderError(f"the grader failed while running {folder.name}: {error}") from error
    if not results:
        raise GraderError(f"the suite {folder} did not run (no test ran); no score was given")
    return settle(results)


def prepare_suite(test_files: list[Path]) -> None:
    """Import and plan the suite now (it is cached), e.g. while the sandboxed worker starts.

    Raises
    ------
    GraderError
        When the suite's own code fails to import.
    """
    with importable(test_files[0].parent):
        _direct_plan(test_files)


def _direct_plan(test_files: list[Path]) -> list[Case] | None:
    """The suite's cases, or None when it needs pytest itself."""
    try:
        return plan(test_files)
    except Unsupported:
        return None
    except Exception as error:  # the suite's own code failed to import: nothing can be graded
        raise GraderError(
            f"the suite {test_files[0].parent} did not run ({type(error).__name__}: {error}); no score was given"
        ) from error
