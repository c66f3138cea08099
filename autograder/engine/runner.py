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
from autograder.errors import GraderError

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


def fixtures_plugin(submission, tolerance) -> types.ModuleType:
    """A plugin module holding the ``submission`` and ``tol`` fixtures, bound to these objects."""

    @pytest.fixture(scope="session", name="submission")
    def submission_fixture():
        return submission

    @pytest.fixture(scope="session", name="tol")
    def tolerance_fixture():
        return tolerance

    plugin = types.ModuleType("attn_course_fixtures")
    plugin.submission_fixture = submission_fixture
    plugin.tolerance_fixture = tolerance_fixture
    return plugin


class SuitePlugin:
    """Registers the ``question`` marker and records every test's result."""

    def __init__(self, show_assertions: bool):
        self._show_assertions = show_assertions
        self.results: list[TestResult] = []
        self.grader_error: GraderError | None = None  # the grader failed: no score may be given

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
        if isinstance(error, GraderError) and self.grader_error is None:
            self.grader_error = error
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

    def _result(self, item, error: BaseException | None) -> TestResult:
        marker = item.get_closest_marker(QUESTION_MARKER)
        question = marker.args[0] if marker and marker.args else "(unassigned)"
        weight = float(marker.kwargs.get("weight", 1)) if marker else 1.0
        doc = (getattr(item.obj, "__doc__", None) or item.name).strip().splitlines()[0]
        if error is None:
            return TestResult(item.name, question, weight, doc, PASSED)
        message, kind, diagnoses = describe_failure(error, doc, self._show_assertions)
        return TestResult(item.name, question, weight, doc, FAILED, message, kind, diagnoses)


@contextmanager
def _importable(folder: Path):
    """Let the suite's files import their neighbours (e.g. ``checklib``) while it runs."""
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        sys.path.remove(str(folder))


def run_suite(test_files: list[Path], submission, tolerance, *, show_assertions: bool = False) -> list[TestResult]:
    """Run the tests in ``test_files`` against ``submission``.

    Parameters
    ----------
    test_files : list of Path
        Pytest files, all in one folder.
    submission : object
        What the ``submission`` fixture returns (a sandbox proxy, or a local module wrapper).
    tolerance : object
        What the ``tol`` fixture returns.
    show_assertions : bool
        Show plain assertion messages to the student (public tests only).

    Returns
    -------
    list of TestResult
        One per test, in run order.
    """
    plugin = SuitePlugin(show_assertions)
    folder = test_files[0].parent
    args = [*PYTEST_ARGS, "--rootdir", str(folder), *map(str, test_files)]
    previous = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        with _importable(folder):
            exit_code = pytest.main(args, plugins=[plugin, fixtures_plugin(submission, tolerance)])
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
