"""Run a suite through ``pytest.main`` in-process, with the engine's fixtures and marks.

The fallback of :func:`autograder.engine.runner.run_suite` for suites that use pytest
features the direct runner (:mod:`autograder.engine.direct`) does not reproduce; the
results, node ids and draws are the same either way.
"""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import pytest
from _pytest.reports import TestReport

from autograder.engine.carried import in_dependency_order
from autograder.engine.outcome import QUESTION_MARKER, grader_error_of, question_of, test_result
from autograder.engine.results import TestResult
from autograder.engine.subject import Subject
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


def fixtures_plugin(subject: Subject, tolerance, seed: int) -> types.ModuleType:
    """A plugin module holding the ``submission``, ``tol`` and ``draw`` fixtures.

    ``draw`` is a fresh :class:`~autograder.judge.draw.Draw` per test, seeded from the
    run's ``seed`` and the test's id.
    """
    from autograder.judge.draw import Draw

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

    def __init__(self, subject: Subject, show_assertions: bool, upstream: dict | None = None):
        self._subject = subject
        self._show_assertions = show_assertions
        self._upstream = upstream or {}
        self.results: list[TestResult] = []
        self.grader_error: GraderError | None = None  # the grader failed: no score may be given

    def pytest_runtest_setup(self, item):
        marker = item.get_closest_marker(QUESTION_MARKER)
        self._subject.start_test(question_of(marker))

    def pytest_collection_modifyitems(self, items):
        """Each function's tests after those of the graded functions it calls (as the direct runner orders them)."""
        items[:] = in_dependency_order(items, lambda item: question_of(item.get_closest_marker(QUESTION_MARKER)),
                                       self._upstream)

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
        if self.grader_error is None:
            self.grader_error = grader_error_of(error, item.nodeid, self._show_assertions)
        skipped = call.excinfo is not None and call.excinfo.errisinstance(pytest.skip.Exception)
        if skipped:
            path, line, _ = item.location
            report_outcome, longrepr = "skipped", (str(path), (line or 0) + 1, str(error))
        else:
            report_outcome = "passed" if error is None else "failed"
            longrepr = None if error is None else f"{type(error).__name__}: {error}"
            if call.when == "call" or error is not None:
                self.results.append(test_result(
                    item.name, item.get_closest_marker(QUESTION_MARKER), item.obj, error,
                    self._subject, self._show_assertions,
                ))
                self._subject.note_result(self.results[-1])
        return TestReport(
            item.nodeid, item.location, {}, report_outcome, longrepr, call.when, (),
            call.duration, call.start, call.stop,
        )


def forget_modules(test_files: list[Path]) -> None:
    """Drop the suite's modules pytest registered, so a same-named file of another suite is not mistaken for them."""
    files = {str(path.resolve()) for path in test_files}
    for name, module in list(sys.modules.items()):
        if str(Path(getattr(module, "__file__", None) or "/").resolve()) in files:
            del sys.modules[name]


def run_with_pytest(test_files: list[Path], subject: Subject, tolerance, seed: int, show_assertions: bool,
                    upstream: dict | None = None) -> list[TestResult]:
    """Run the suite through ``pytest.main`` (for suites using pytest features beyond the direct runner's)."""
    plugin = SuitePlugin(subject, show_assertions, upstream)
    folder = test_files[0].parent
    args = [*PYTEST_ARGS, "--rootdir", str(folder), *map(str, test_files)]
    previous = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        exit_code = pytest.main(args, plugins=[plugin, fixtures_plugin(subject, tolerance, seed)])
    finally:
        forget_modules(test_files)
        if previous is None:
            os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = previous
    if plugin.grader_error is not None:
        raise GraderError(f"the grader failed while running {folder.name}: {plugin.grader_error}") from plugin.grader_error
    if exit_code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        raise GraderError(f"the suite {folder} did not run (pytest exit code {exit_code!r}); no score was given")
    return plugin.results
