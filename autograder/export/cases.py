"""The hidden tests of an assignment as an export lists them: one entry per test, with its weight.

Otter needs one test case per hidden test, with its points and whether students may see
it; this module collects the suite (pytest collection only: nothing is run) and says so.
A test that takes no ``draw`` fixture runs on fixed inputs, which are public (the worked
example); it is *visible*. Every test drawing its inputs from the run's seed is *hidden*.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder.engine.outcome import QUESTION_MARKER
from autograder.engine.pytest_runner import PYTEST_ARGS
from autograder.errors import GraderError
from autograder.paths import HIDDEN_TESTS_DIR

#: The fixture through which a test draws fresh inputs from the run's seed.
DRAW_FIXTURE = "draw"


@dataclass(frozen=True)
class HiddenCase:
    """One hidden test: its name (as results name it), question, weight, description and visibility."""

    name: str
    question: str
    weight: float
    description: str
    visible: bool


def suite_files(assignment_id: str, tests_dir: Path = HIDDEN_TESTS_DIR) -> list[Path]:
    """The hidden test files of an assignment.

    Raises
    ------
    GraderError
        When there are none.
    """
    files = sorted((tests_dir / assignment_id).glob("test_*.py"))
    if not files:
        raise GraderError(f"no hidden tests for {assignment_id} in {tests_dir / assignment_id}")
    return files


class _Collector:
    """Records the collected items (pytest plugin)."""

    def __init__(self):
        self.cases: list[HiddenCase] = []
        self.unmarked: list[str] = []

    def pytest_configure(self, config):
        config.addinivalue_line("markers", f"{QUESTION_MARKER}(function, weight=1): the graded question")

    def pytest_collection_modifyitems(self, items):
        for item in items:
            marker = item.get_closest_marker(QUESTION_MARKER)
            if marker is None or not marker.args:
                self.unmarked.append(item.nodeid)
                continue
            doc = (getattr(item.obj, "__doc__", None) or item.name).strip().splitlines()[0]
            self.cases.append(HiddenCase(item.name, marker.args[0], float(marker.kwargs.get("weight", 1)), doc,
                                         DRAW_FIXTURE not in item.fixturenames))


def hidden_cases(assignment_id: str, tests_dir: Path = HIDDEN_TESTS_DIR) -> list[HiddenCase]:
    """Every hidden test of an assignment, in run order.

    Raises
    ------
    GraderError
        When the suite does not collect, or two tests of a question share a name.
    """
    files = suite_files(assignment_id, tests_dir)
    collector = _Collector()
    args = [*PYTEST_ARGS, "--collect-only", "--rootdir", str(files[0].parent), *map(str, files)]
    previous = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        code = pytest.main(args, plugins=[collector])
    finally:
        if previous is None:
            os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = previous
    if collector.unmarked:
        raise GraderError(f"hidden tests of {assignment_id} without a question marker: {', '.join(collector.unmarked)}")
    if code != pytest.ExitCode.OK or not collector.cases:
        raise GraderError(f"the hidden tests of {assignment_id} did not collect (pytest exit code {code!r})")
    keys = [(c.question, c.name) for c in collector.cases]
    if len(set(keys)) != len(keys):
        raise GraderError(f"two hidden tests of {assignment_id} share a question and a name")
    return collector.cases
