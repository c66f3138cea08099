"""The in-process adapter calls and observes a notebook's functions the way the sandboxed worker does."""

import time

import numpy as np
import pytest

from autograder.errors import BadReturn, CallTimeout, MissingFunction, NotImplementedYet, StudentException
from autograder.export.namespace import NamespaceSubmission
from autograder.inputs import RngSeed
from autograder.sandbox.client import MAX_TIMEOUTS_PER_FUNCTION

CELL = '''
import numpy as np

def shifts_in_place(x):
    x -= x.max()
    return x

def as_list(x):
    return [1.0, 2.0]

def stub(x):
    raise NotImplementedError("stub: not implemented yet")

def inner(x):
    return x[10]

def outer(x):
    return inner(x)

def returns_none(x):
    pass

def forever(x):
    while True:
        pass

def draws(rng):
    return rng.standard_normal(3)
'''


@pytest.fixture
def submission():
    namespace = {"__name__": "notebook"}
    exec(compile(CELL, "<cell-1>", "exec"), namespace)
    return NamespaceSubmission(namespace, call_timeout_s=0.3, submission_timeout_s=30)


def test_a_call_gets_private_copies_and_its_in_place_change_is_observed(submission):
    x = np.arange(3.0)
    outcome = submission.call_observed("shifts_in_place", x)
    np.testing.assert_array_equal(x, [0.0, 1.0, 2.0])  # the test's own array is untouched
    np.testing.assert_array_equal(outcome.result, [-2.0, -1.0, 0.0])
    assert outcome.mutated == ("0",)


def test_the_returned_kind_is_observed(submission):
    outcome = submission.call_observed("as_list", np.zeros(2))
    assert (outcome.container, outcome.parts) == ("list", ("python_scalar", "python_scalar"))
    assert isinstance(outcome.result, np.ndarray)


def test_failures_have_the_workers_kinds(submission):
    with pytest.raises(NotImplementedYet, match=r"stub\(\) is not implemented yet"):
        submission.call("stub", 1)
    with pytest.raises(MissingFunction, match="does not define nothing"):
        submission.call("nothing", 1)
    with pytest.raises(BadReturn, match="None"):
        submission.call("returns_none", 1)


def test_a_student_exception_shows_only_the_notebooks_frames(submission):
    with pytest.raises(StudentException) as caught:
        submission.call("outer", np.zeros(2))
    assert caught.value.last_line.startswith("IndexError")
    assert caught.value.innermost_function == "inner"
    assert "namespace.py" not in caught.value.student_message


def test_an_endless_call_times_out_once_then_is_not_run_again(submission):
    for _ in range(MAX_TIMEOUTS_PER_FUNCTION):
        with pytest.raises(CallTimeout, match="did not finish"):
            submission.call("forever", 1)
    started = time.monotonic()
    with pytest.raises(CallTimeout, match="not run again"):
        submission.call("forever", 1)
    assert time.monotonic() - started < 0.1


def test_a_seed_becomes_a_fresh_generator(submission):
    first, second = submission.call("draws", RngSeed(3)), submission.call("draws", RngSeed(3))
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(first, np.random.default_rng(3).standard_normal(3))
