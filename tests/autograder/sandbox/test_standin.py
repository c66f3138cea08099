"""Stand-ins across the sandbox: answered by the grader for one call only, refused everywhere else."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.errors import StudentException, WorkerCrashed
from autograder.sandbox import answers, standin

from .conftest import make_submission

SOURCE = '''
import gc
import numpy as np

_kept = []

def upstream(x):
    return np.asarray(x) * 0  # the student's own (wrong) upstream

def downstream(x):
    return upstream(x) + 1

def keeps(x):
    _kept.append(upstream)
    return upstream(x) + 1

def uses_kept(x):
    return _kept[-1](x) + 1

def many(x, n):
    total = np.zeros_like(np.asarray(x, dtype=float))
    for _ in range(n):
        total = upstream(x)
    return total

def asks_for(name, x):
    worker = next(o for o in gc.get_objects() if type(o).__name__ == "Worker")
    return worker.ask(name, (x,), {})

def forges(x):
    worker = next(o for o in gc.get_objects() if type(o).__name__ == "Worker")
    return worker.ask("upstream", (x,), {})

def passes_an_object(x):
    return upstream(object())
'''


def doubled(x):
    return np.asarray(x) * 2


@pytest.fixture
def sub():
    with make_submission(SOURCE) as submission:
        yield submission


def test_the_re_check_binds_the_grader_s_function_and_the_plain_call_the_student_s(sub):
    x = np.arange(3.0)
    assert np.array_equal(sub.call("downstream", x), x * 0 + 1)
    rechecked = sub.call_with_standins("downstream", {"upstream": doubled}, (x,), {})
    assert np.array_equal(rechecked.result, 2 * x + 1)
    assert np.array_equal(sub.call("downstream", x), x * 0 + 1), "the student's own upstream is bound again"


def test_a_stand_in_kept_by_the_student_refuses_to_answer_later(sub):
    x = np.arange(3.0)
    sub.call_with_standins("keeps", {"upstream": doubled}, (x,), {})
    with pytest.raises(StudentException, match="one check only"):
        sub.call("uses_kept", x)
    with pytest.raises(StudentException, match="one check only"):
        sub.call_with_standins("uses_kept", {"upstream": doubled}, (x,), {})


def test_a_request_outside_a_re_check_kills_the_worker_unanswered(sub):
    with pytest.raises(WorkerCrashed):
        sub.call("forges", np.arange(3.0))
    assert np.array_equal(sub.call("downstream", np.ones(2)), np.ones(2)), "a new worker serves the next call"


def test_a_name_the_re_check_did_not_bind_is_refused(sub):
    with pytest.raises(StudentException, match="no such stand-in"):
        sub.call_with_standins("asks_for", {"upstream": doubled}, ("secret", np.arange(3.0)), {})


def test_arguments_that_cannot_travel_raise_in_the_student_s_code(sub):
    with pytest.raises(StudentException, match="cannot be given these arguments"):
        sub.call_with_standins("passes_an_object", {"upstream": doubled}, (np.arange(3.0),), {})


def test_the_number_of_requests_in_one_call_is_bounded(sub):
    x = np.arange(3.0)
    assert np.array_equal(sub.call_with_standins("many", {"upstream": doubled}, (x, 10), {}).result, 2 * x)
    with pytest.raises(StudentException, match="more than"):
        sub.call_with_standins("many", {"upstream": doubled}, (x, answers.MAX_REQUESTS_PER_CALL + 1), {})


def test_the_trusted_function_s_own_error_is_the_student_s_exception(sub):
    def rejects(x):
        raise ValueError("x must be 2-D")

    with pytest.raises(StudentException, match="x must be 2-D"):
        sub.call_with_standins("downstream", {"upstream": rejects}, (np.arange(3.0),), {})


def test_binding_restores_the_namespace_whatever_the_block_did():
    namespace = {"f": "own"}
    with standin.bound(namespace, ["f", "g"], lambda name, args, kwargs: (name, args)):
        assert namespace["f"](1) == ("f", (1,)) and namespace["g"]() == ("g", ())
        kept = namespace["f"]
        namespace["f"] = "replaced by the block"
    assert namespace == {"f": "own"}
    with pytest.raises(standin.StandInExpired):
        kept(1)
