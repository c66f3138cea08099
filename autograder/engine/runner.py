"""Run pytest in-process over a suite, with the submission and tolerance injected as fixtures."""

from __future__ import annotations

import os
import sys
import types
from contextlib import contextmanager
from pathlib import Path

import pytest
from _pytest.reports import TestReport

from autograder.engine.outcome import describe_failure
from autograder.engine.results import FAILED, PASSED, TestResult
from autograder.engine.subject import Subject
from autograder.errors import GraderError, SubmissionError

#: Built-in pytest plugins a grading run never needs; each costs start-up or teardown time.
UNUSED_PLUGINS = (
    "cacheprovider", "terminal", "unraisableexception", "threadexception", "faulthandler", "doctest",
    "junitxml", "pastebin", "legacypath", "stepwise", "setuponly", "setupplan", "logging", "warnings",
    "debugging", "tmpdir", "monkeypatch", "recwarn", "nose", "randomly",
)
#: Options that keep pytest quiet, fast and blind to the project's own configuration.
PYTEST_ARGS = (
    *(option for plugin in UNUSED_PLUGINS for option in ("-p", f"no:{plugin}")),
    "--noconftest",
    "--assert=plain",  # suites state their checks with expect(), not bare asserts to rewrite
    "--capture=no",
    "--import-mode=importlib",
    "-c", str(Path(__file__).resolve().parent / "pytest.ini"),
    "-o", "python_files=test_*.py",
)
QUESTION_MARKER = "question"


def fixtures_plugin(subject: Subject, tolerance, seed: int) -> types.ModuleType:
    """A plugin module holding the ``submission``, ``tol`` and ``draw`` fixtures.

    ``draw`` is a fresh :class:`~autograder.grade.draw.Draw` per test, seeded from the
    run's ``seed`` and the test's id.
    """
    from autograder.grade.draw import Draw

    @pytest.fixture(scope="session", name="submission")
    def submission_fixture():
        return subject

    @pytest.fixture(scope="session", name="tol")
    def tolerance_fixture():
        return tolerance

    @pytest.fixture(name="draw")
    def draw_fixture(request):
        return Draw(seed, request.node.nodeid)

    plugin = types.ModuleType("attn_course_fixtures")
    plugin.submission_fixture = submission_fixture
    plugin.tolerance_fixture = tolerance_fixture
    plugin.draw_fixture = draw_fixture
    return plugin


class SuitePlugin:
    """Registers the ``question`` marker and records every test's result."""

    def __init__(self, subject: Subject, show_assertions: bool):
        self._subject = subject
        self._show_assertions = show_assertions
        self.results: list[TestResult] = []
        self.grader_error: GraderError | None = None  # the grader failed: no score may be given

    def pytest_runtest_setup(self, item):
        marker = item.get_closest_marker(QUESTION_MARKER)
        self._subject.start_test(marker.args[0] if marker and marker.args else "")

    def pytest_configure(self, config):
        config.addinivalue_line("markers", f"{QUESTION_MARKER}(function, weight=1): the graded question a test belongs to")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item, call) -> TestReport:
        """Record the outcome and hand pytest a plain report.

        pytest's own report would render a full traceback with source for every
        failure; nobody reads it here, and for a stub failing every test it costs
        more than the grading itself.
        """
        error = call.excinfo.value if call.excinfo is not None else None
        if self.grader_error is None and self._is_grader_error(error):
            self.grader_error = error if isinstance(error, GraderError) else GraderError(
                f"{item.nodeid} raised {type(error).__name__}: {error}"
            )
        skipped = call.excinfo is not None and call.excinfo.errisinstance(pytest.skip.Exception)
        if skipped:
            path, line, _ = item.location
            report_outcome, longrepr = "skipped", (str(path), (line or 0) + 1, str(error))
        else:
            report_outcome = "passed" if error is None else "failed"
            longrepr = None if error is None else f"{type(error).__name__}: {error}"
            if call.when == "call" or error is not None:
                self.results.append(self._result(item, error))
        return TestReport(
            item.nodeid, item.location, {}, report_outcome, longrepr, call.when, (),
            call.duration, call.start, call.stop,
        )

    def _is_grader_error(self, error: BaseException | None) -> bool:
        """A failure of the grader, not of the submission: it stops the run instead of costing points.

        In hidden suites (``show_assertions`` off) only a failed check (an AssertionError, which
        the checks raise), a skip or a SubmissionError is the submission's; anything else the
        test's own code raised is a bug of the suite. Public suites show every failure.
        """
        if error is None or isinstance(error, GraderError):
            return isinstance(error, GraderError)
        if self._show_assertions:
            return False
        return not isinstance(error, (AssertionError, SubmissionError, pytest.skip.Exception, pytest.fail.Exception))

    def _result(self, item, error: BaseException | None) -> TestResult:
        marker = item.get_closest_marker(QUESTION_MARKER)
        question = marker.args[0] if marker and marker.args else "(unassigned)"
        weight = float(marker.kwargs.get("weight", 1)) if marker else 1.0
        doc = (getattr(item.obj, "__doc__", None) or item.name).strip().splitlines()[0]
        figures = tuple(self._subject.figures)
        if error is None:
            return TestResult(item.name, question, weight, doc, PASSED, carried_from=tuple(self._subject.carried),
                              figures=figures)
        message, kind, diagnoses = describe_failure(error, doc, self._show_assertions)
        return TestResult(item.name, question, weight, doc, FAILED, message, kind, diagnoses, figures=figures)


@contextmanager
def _importable(folder: Path):
    """Let the suite's files import their neighbours (e.g. ``checklib``) while it runs."""
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        sys.path.remove(str(folder))


def run_suite(
    test_files: list[Path], submission, tolerance, *, seed: int = 0, questions: tuple[str, ...] = (),
    show_assertions: bool = False,
) -> list[TestResult]:
    """Run the tests in ``test_files`` against ``submission``.

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
    show_assertions : bool
        Show plain assertion messages to the student (public tests only).

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
    plugin = SuitePlugin(subject, show_assertions)
    folder = test_files[0].parent
    args = [*PYTEST_ARGS, "--rootdir", str(folder), *map(str, test_files)]
    previous = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        with _importable(folder):
            exit_code = pytest.main(args, plugins=[plugin, fixtures_plugin(subject, tolerance, seed)])
    finally:
        if previous is None:
            os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = previous
    if plugin.grader_error is not None:
        raise GraderError(f"the grader failed while running {folder.name}: {plugin.grader_error}") from plugin.grader_error
    if exit_code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) or not plugin.results:
        raise GraderError(f"the suite {folder} did not run (pytest exit code {exit_code!r}); no score was given")
    return plugin.results
