"""The hidden tests of an assignment as an export lists them: one entry per test, with its weight.

Otter needs one test case per hidden test, with its points and whether students may see
it; this module lists the suite as the grader plans it (:func:`autograder.engine.direct.plan`, the one
collector of hidden suites: the same names, marks and parameters as a grading run; nothing is run).
A test that takes no ``draw`` fixture runs on fixed inputs, which are public (the worked
example); it is *visible*. Every test drawing its inputs from the run's seed is *hidden*.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from autograder.engine.direct import Unsupported, plan
from autograder.engine.outcome import QUESTION_MARKER
from autograder.engine.runner import importable
from autograder.errors import GraderError
from autograder.layout import default_layout

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


def suite_files(assignment_id: str, tests_dir: Path | None = None) -> list[Path]:
    """The hidden test files of an assignment, in ``tests_dir`` (default: the default course's hidden suites).

    Raises
    ------
    GraderError
        When there are none.
    """
    tests_dir = default_layout().hidden_tests if tests_dir is None else tests_dir
    files = sorted((tests_dir / assignment_id).glob("test_*.py"))
    if not files:
        raise GraderError(f"no hidden tests for {assignment_id} in {tests_dir / assignment_id}")
    return files


def hidden_cases(assignment_id: str, tests_dir: Path | None = None) -> list[HiddenCase]:
    """Every hidden test of an assignment, in run order (``tests_dir``: as for :func:`suite_files`).

    Raises
    ------
    GraderError
        When the suite does not collect, or two tests of a question share a name.
    """
    files = suite_files(assignment_id, tests_dir)
    try:
        with importable(files[0].parent):
            planned = plan(files)
    except Unsupported as why:
        raise GraderError(f"the hidden tests of {assignment_id} need pytest itself ({why}): the grader plans them directly") from None
    except Exception as error:  # the suite's own code does not import
        raise GraderError(f"the hidden tests of {assignment_id} did not collect ({type(error).__name__}: {error})") from None
    unmarked = [case.nodeid for case in planned if not _question(case)]
    if unmarked:
        raise GraderError(f"hidden tests of {assignment_id} without a question marker: {', '.join(unmarked)}")
    if not planned:
        raise GraderError(f"the hidden tests of {assignment_id} hold no test")
    cases = [HiddenCase(case.name, _question(case), float(case.mark(QUESTION_MARKER).kwargs.get("weight", 1)),
                        _description(case), DRAW_FIXTURE not in case.fixtures) for case in planned]
    keys = [(c.question, c.name) for c in cases]
    if len(set(keys)) != len(keys):
        raise GraderError(f"two hidden tests of {assignment_id} share a question and a name")
    return cases


def _question(case) -> str | None:
    marker = case.mark(QUESTION_MARKER)
    return marker.args[0] if marker is not None and marker.args else None


def _description(case) -> str:
    """The first line of the test's docstring, else its name."""
    return (case.function.__doc__ or case.name).strip().splitlines()[0]
