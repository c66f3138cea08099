"""Subject: the submission as hidden tests see it (forwarded calls, carried-forward bookkeeping)."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.sandbox.call import CallOutcome
from autograder.engine.subject import Subject


class RecordingProxy:
    """Has only ``call``: records each call and answers with a fixed array."""

    def __init__(self, answer=None):
        self.calls = []
        self.answer = np.arange(3.0) if answer is None else answer

    def call(self, function, *args, **kwargs):
        self.calls.append((function, args, kwargs))
        return self.answer


class ObservingProxy(RecordingProxy):
    """Also has ``call_observed``, like the sandboxed submission."""

    def __init__(self):
        super().__init__()
        self.observed = []
        self.outcome = CallOutcome(np.ones(2), mutated=("0",), container=None, parts=("ndarray",))

    def call_observed(self, function, *args, **kwargs):
        self.observed.append((function, args, kwargs))
        return self.outcome


def test_call_forwards_the_function_and_every_argument():
    proxy = RecordingProxy()
    x = np.zeros((2, 3))
    result = Subject(proxy).call("softmax", x, axis=0)
    assert result is proxy.answer
    (function, args, kwargs), = proxy.calls
    assert function == "softmax" and args[0] is x and kwargs == {"axis": 0}


def test_call_observed_forwards_to_a_proxy_that_observes():
    proxy = ObservingProxy()
    outcome = Subject(proxy).call_observed("causal_mask", 4, dtype=None)
    assert outcome is proxy.outcome
    assert proxy.observed == [("causal_mask", (4,), {"dtype": None})]
    assert proxy.calls == []


def test_call_observed_without_observations_wraps_the_plain_result():
    proxy = RecordingProxy()
    outcome = Subject(proxy).call_observed("softmax", 1.5, axis=-1)
    assert isinstance(outcome, CallOutcome)
    assert outcome.result is proxy.answer
    assert outcome.mutated == ()
    assert proxy.calls == [("softmax", (1.5,), {"axis": -1})]


def test_exceptions_of_the_proxy_propagate():
    class Failing:
        def call(self, function, *args, **kwargs):
            raise RuntimeError("worker crashed")

    with pytest.raises(RuntimeError, match="worker crashed"):
        Subject(Failing()).call_observed("softmax", 1.0)


def test_attribute_access_calls_the_function_of_that_name():
    proxy = RecordingProxy()
    result = Subject(proxy).split_heads(np.ones((2, 4)), 2)
    assert result is proxy.answer
    assert proxy.calls[0][0] == "split_heads" and proxy.calls[0][1][1] == 2


def test_private_attributes_are_not_functions():
    subject = Subject(RecordingProxy())
    with pytest.raises(AttributeError):
        subject._hidden  # noqa: B018
    assert not hasattr(subject, "__wrapped__")


def test_the_subjects_own_attributes_are_not_forwarded():
    proxy = RecordingProxy()
    subject = Subject(proxy, ("softmax", "causal_mask"))
    assert subject.proxy is proxy
    assert subject.questions == ("softmax", "causal_mask")
    assert subject.carried == []
    assert proxy.calls == []


def test_questions_are_kept_as_a_tuple():
    assert Subject(RecordingProxy(), ["softmax"]).questions == ("softmax",)
    assert Subject(RecordingProxy()).questions == ()


def test_carry_from_records_each_function_once_in_order():
    subject = Subject(RecordingProxy())
    subject.carry_from(("softmax",))
    subject.carry_from(("split_heads", "softmax"))
    subject.carry_from(("merge_heads",))
    assert subject.carried == ["softmax", "split_heads", "merge_heads"]


def test_carry_from_records_a_name_repeated_within_one_call_once():
    subject = Subject(RecordingProxy())
    subject.carry_from(("merge_heads", "merge_heads"))
    assert subject.carried == ["merge_heads"]


def test_start_test_forgets_what_the_previous_test_carried():
    subject = Subject(RecordingProxy())
    subject.carry_from(("softmax",))
    subject.start_test()
    assert subject.carried == []
    subject.carry_from(("dot_score",))
    assert subject.carried == ["dot_score"]


def test_each_subject_has_its_own_record():
    one, other = Subject(RecordingProxy()), Subject(RecordingProxy())
    one.carry_from(("softmax",))
    assert other.carried == []
