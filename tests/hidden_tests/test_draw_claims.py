"""Every hidden test's draws keep their claims (autograder.judge.claims) on 1,000 seeds.

Draw only, no grading: each test function runs with a recording fake submission that keeps
the first call's arguments and stops the test there, so a thousand seeds of a whole suite
take seconds. The claims are checked on the recorded call.
"""

from __future__ import annotations

import numpy as np
import pytest

from autograder.config import load_course
from autograder.engine.direct import plan
from autograder.judge import claims
from autograder.judge.draw import Draw
from autograder.judge.tolerance import Tolerance
from autograder.layout import CourseDirectory

SEEDS = 1_000
TOLERANCE = Tolerance(rtol=1e-6, atol=1e-8)


class Recorded(Exception):
    """Raised by the fake submission on the test's first call, carrying it."""

    def __init__(self, function: str, args: tuple, kwargs: dict):
        super().__init__(function)
        self.function, self.args, self.kwargs = function, args, kwargs


class RecordingSubmission:
    """Stands in for the sandboxed submission: records the first call and stops the test."""

    carried = False

    def call(self, function: str, *args, **kwargs):
        raise Recorded(function, args, kwargs)


def _no_numerical_gradient(function, x, *args, **kwargs):
    """The centred differences are grading work, not drawing: skipped."""
    return np.zeros_like(x)


def _drawing_cases():
    layout = CourseDirectory.of()
    cases = []
    for assignment in load_course().assignments:
        folder = layout.hidden_tests / assignment.id
        cases += [case for case in plan(sorted(folder.glob("test_*.py"))) if "draw" in case.fixtures]
    return cases


CASES = _drawing_cases()


def recorded_call(case, seed: int) -> Recorded:
    """The first call ``case`` makes on ``seed``'s draws."""
    arguments = {"submission": RecordingSubmission(), "tol": TOLERANCE, "draw": Draw(seed, case.nodeid)}
    try:
        case.function(**{name: arguments[name] for name in case.fixtures}, **case.params)
    except Recorded as call:
        return call
    raise AssertionError(f"{case.nodeid} called no graded function")


def broken_claims(case, seeds: range) -> list[str]:
    """The first few (seed, problem) lines of ``case`` over ``seeds``."""
    declared = claims.claims_of(case.function)
    found = []
    for seed in seeds:
        call = recorded_call(case, seed)
        found += [f"seed {seed}: {problem}" for problem in claims.call_problems(call.function, call.args, call.kwargs, declared)]
        if len(found) >= 3:
            break
    return found


@pytest.fixture(autouse=True)
def _skip_centred_differences(monkeypatch):
    for case in CASES:
        if "numerical_gradient" in case.function.__globals__:  # the suite module's namespace
            monkeypatch.setitem(case.function.__globals__, "numerical_gradient", _no_numerical_gradient)


def test_every_assignment_has_drawing_hidden_tests():
    assert {case.nodeid.split("::")[0] for case in CASES}
    assert len(CASES) >= len(load_course().assignments)


@pytest.mark.parametrize("case", CASES, ids=[case.nodeid for case in CASES])
def test_draws_keep_their_claims_on_every_seed(case):
    assert broken_claims(case, range(SEEDS)) == []
