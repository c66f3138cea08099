"""Call properties: inputs modified in place, lists returned, float32 promoted to float64."""

from __future__ import annotations

import math

import numpy as np
import pytest

from autograder.sandbox.call import CallOutcome
from autograder.diagnose.probes.finding import Finding
from autograder.diagnose.properties import (
    argument_name,
    call_properties,
    float32_promoted,
    modified_inputs,
    returned_lists,
)
from autograder.judge.compare import Parts
from autograder.sandbox.worker import convert_result, returned_kinds
from tests.autograder.support import InProcessSubmission

SDPA = "scaled_dot_product_attention"


def normal(shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def observed(function: str, implementation, *args, **kwargs) -> CallOutcome:
    """What the (in-process) worker reports for one call."""
    return InProcessSubmission({function: implementation}).call_observed(function, *args, **kwargs)


def softmax_in_place(x, axis=-1):
    x -= x.max(axis=axis, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=axis, keepdims=True)
    return x


def softmax_right(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention(Q, K, V, mask=None):
    A = softmax_right(Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1]))
    return A @ V, A


@pytest.mark.parametrize(
    "function, label, name",
    [
        ("softmax", "0", "x"),
        (SDPA, "2", "V"),
        (SDPA, "mask", "mask"),
        (SDPA, "1.0", "K[0]"),
        (SDPA, "1.0.2", "K[0][2]"),
        ("softmax", "7", "7"),
    ],
)
def test_argument_name_turns_a_worker_label_into_a_parameter(function, label, name):
    assert argument_name(function, label) == name


def test_an_input_changed_in_place_is_named():
    outcome = observed("softmax", softmax_in_place, normal((3, 4)))
    assert modified_inputs("softmax", outcome) == [Finding("call.modifies_input", {"argument": "x"})]


def test_a_keyword_input_changed_in_place_is_named_by_its_keyword():
    def masks_in_place(Q, K, V, mask=None):
        mask[...] = True
        return attention(Q, K, V)

    outcome = observed(SDPA, masks_in_place, normal((2, 3)), normal((4, 3)), normal((4, 2)), mask=np.eye(2, 4, dtype=bool))
    assert modified_inputs(SDPA, outcome) == [Finding("call.modifies_input", {"argument": "mask"})]


def test_every_modified_input_is_named_once():
    outcome = CallOutcome(np.zeros(1), mutated=("0", "2"))
    assert modified_inputs(SDPA, outcome) == [
        Finding("call.modifies_input", {"argument": "Q"}),
        Finding("call.modifies_input", {"argument": "V"}),
    ]


def test_inputs_left_alone_give_no_finding():
    assert modified_inputs("softmax", observed("softmax", softmax_right, normal((3, 4)))) == []


def test_a_list_returned_for_an_array_is_named():
    outcome = observed("softmax", lambda x, axis=-1: softmax_right(x).tolist(), normal((3, 4)))
    assert returned_lists("softmax", outcome) == [Finding("call.returns_list", {"documented": "a numpy array"})]


def test_a_list_returned_for_a_tuple_is_named_with_the_tuples_parts():
    returned = list(attention(normal((2, 3)), normal((4, 3)), normal((4, 2))))  # [Z, A]: two shapes
    kinds = returned_kinds(returned)
    outcome = CallOutcome(convert_result(returned), (), kinds["container"], tuple(kinds["parts"]))  # as the worker
    assert returned_lists(SDPA, outcome) == [Finding("call.returns_list", {"documented": "a tuple (Z, A)"})]


def test_a_list_inside_the_tuple_is_named():
    def weights_as_list(*args):
        Z, A = attention(*args)
        return Z, A.tolist()

    outcome = observed(SDPA, weights_as_list, normal((2, 3)), normal((4, 3)), normal((4, 2)))
    assert returned_lists(SDPA, outcome) == [Finding("call.returns_list", {"documented": "a tuple (Z, A)"})]


def test_numbers_and_arrays_as_documented_give_no_finding():
    outcome = observed("dot_product_variance", lambda d_k, n, rng: (float(d_k), 1.0), 4, 10, None)
    assert returned_lists("dot_product_variance", outcome) == []
    assert returned_lists(SDPA, observed(SDPA, attention, normal((2, 3)), normal((4, 3)), normal((4, 2)))) == []


def promoted_attention(Q, K, V, mask=None):
    A = softmax_right(Q @ np.swapaxes(K, -1, -2) / np.sqrt(np.float64(Q.shape[-1])))  # float64 scalar promotes
    return A @ V, A


def float32_inputs():
    return normal((2, 3), 1, np.float32), normal((4, 3), 2, np.float32), normal((4, 2), 3, np.float32)


def expected_float32() -> Parts:
    return Parts(True, (np.zeros((2, 2), np.float32), np.zeros((2, 4), np.float32)))


def test_float32_promoted_to_float64_is_named():
    outcome = observed(SDPA, lambda *a: tuple(p.astype(np.float64) for p in attention(*a)), *float32_inputs())
    assert float32_promoted(SDPA, expected_float32(), outcome) == [Finding("call.float32_promoted", {})]


def test_one_promoted_part_is_enough():
    def weights_promoted(*args):
        Z, A = attention(*args)
        return Z, A.astype(np.float64)

    outcome = observed(SDPA, weights_promoted, *float32_inputs())
    assert float32_promoted(SDPA, expected_float32(), outcome) == [Finding("call.float32_promoted", {})]


def test_float32_kept_gives_no_finding():
    outcome = observed(SDPA, attention, *float32_inputs())
    assert outcome.result[1].dtype == np.float32
    assert float32_promoted(SDPA, expected_float32(), outcome) == []


def test_float64_expected_gives_no_finding():
    outcome = observed("softmax", softmax_right, normal((3, 4)))
    assert float32_promoted("softmax", Parts(False, (np.zeros((3, 4)),)), outcome) == []


def test_numbers_are_not_judged_by_dtype():
    outcome = CallOutcome((np.float64(4.0), np.float64(1.0)), container="tuple", parts=("numpy_scalar", "numpy_scalar"))
    expected = Parts(True, (np.asarray(4.0, np.float32), np.asarray(1.0, np.float32)))
    assert float32_promoted("dot_product_variance", expected, outcome) == []


def test_call_properties_lists_every_broken_property_in_order():
    def everything_wrong(x, axis=-1):
        result = softmax_in_place(x, axis).astype(np.float64)
        return result.tolist()

    x = normal((3, 4), 0, np.float32)
    outcome = observed("softmax", everything_wrong, x)
    ids = [finding.id for finding in call_properties("softmax", Parts(False, (np.zeros((3, 4), np.float32),)), outcome)]
    assert ids == ["call.modifies_input", "call.returns_list", "call.float32_promoted"]


def test_call_properties_of_a_clean_call_is_empty():
    outcome = observed("softmax", softmax_right, normal((3, 4)))
    assert call_properties("softmax", Parts(False, (np.zeros((3, 4)),)), outcome) == []
