"""A failed call as the probes see it: its arguments, recomputations of the reference, recalls of the student."""

from __future__ import annotations

import math

import numpy as np
import pytest

import attn_reference
from autograder.diagnose.case import MAX_STUDENT_CALLS, Case, reference_parameters
from autograder.errors import StudentException
from autograder.judge.compare import Parts, Raised, Tolerance, split

TOL = Tolerance(1e-5, 1e-8)
SEED = 7


def softmax_rows(x):
    """softmax along the last axis, written out row by row."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    for index in np.ndindex(x.shape[:-1]):
        row = np.exp(x[index] - max(x[index]))
        out[index] = row / row.sum()
    return out


def attention_by_hand(Q, K, V, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax_rows(scores)
    return weights @ V, weights


@pytest.fixture
def qkv():
    normal = np.random.default_rng(SEED).standard_normal
    return normal((5, 4)), normal((6, 4)), normal((6, 3))


def attention_case(args, kwargs, student, call_student=None, dependencies=None) -> Case:
    reference = split(attention_by_hand(*args, **kwargs))
    return Case("scaled_dot_product_attention", args, kwargs, TOL, reference, student, call_student, dependencies or {})


def test_reference_parameters_leave_out_keyword_only_dependencies():
    assert reference_parameters("multi_head_attention") == ["X_q", "X_kv", "W_q", "W_k", "W_v", "W_o", "num_heads", "mask"]
    assert reference_parameters("softmax") == ["x", "axis"]


def test_arguments_are_named_with_defaults_filled(qkv):
    Q, K, V = qkv
    case = attention_case((Q, K), {"V": V}, split(attention_by_hand(Q, K, V)))
    arguments = case.arguments
    assert list(arguments) == ["Q", "K", "V", "mask"]
    assert arguments["Q"] is Q and arguments["V"] is V and arguments["mask"] is None


def test_contract_is_the_functions_own(qkv):
    case = attention_case(qkv, {}, split(attention_by_hand(*qkv)))
    assert case.contract is attn_reference.scaled_dot_product_attention.__contract__


def test_changed_replaces_a_positional_argument_in_place(qkv):
    Q, K, V = qkv
    case = attention_case((Q, K, V), {}, split(attention_by_hand(Q, K, V)))
    args, kwargs = case.changed(K=2 * K)
    assert len(args) == 3 and args[0] is Q and args[2] is V
    np.testing.assert_array_equal(args[1], 2 * K)
    assert kwargs == {}


def test_changed_keeps_keyword_arguments_as_keywords(qkv):
    Q, K, V = qkv
    mask = np.ones((5, 6), dtype=bool)
    case = attention_case((Q, K), {"V": V, "mask": mask}, split(attention_by_hand(Q, K, V, mask)))
    args, kwargs = case.changed(V=-V, mask=None)
    assert args == (Q, K)
    assert set(kwargs) == {"V", "mask"}
    np.testing.assert_array_equal(kwargs["V"], -V)
    assert kwargs["mask"] is None


def test_changed_passes_an_argument_the_test_left_out_as_a_keyword(qkv):
    Q, K, V = qkv
    case = attention_case((Q, K, V), {}, split(attention_by_hand(Q, K, V)))
    mask = np.tril(np.ones((5, 6), dtype=bool))
    args, kwargs = case.changed(mask=mask)
    assert len(args) == 3 and kwargs == {"mask": mask}


def test_changed_without_changes_gives_the_call_back(qkv):
    Q, K, V = qkv
    case = attention_case((Q, K), {"V": V}, split(attention_by_hand(Q, K, V)))
    assert case.changed() == ((Q, K), {"V": V})


def test_reference_with_recomputes_on_changed_arguments(qkv):
    Q, K, V = qkv
    case = attention_case((Q, K, V), {}, split(attention_by_hand(Q, K, V)))
    mask = np.eye(5, 6, dtype=bool)  # query i attends to key i only
    recomputed = case.reference_with(mask=mask)
    np.testing.assert_allclose(recomputed.arrays[1], mask.astype(float))
    np.testing.assert_allclose(recomputed.arrays[0], V[:5])


def uniform_softmax(x, axis=-1):
    return np.ones_like(x) / x.shape[axis]


def test_reference_with_replaces_a_dependency(qkv):
    Q, K, V = qkv
    case = attention_case((Q, K, V), {}, split(attention_by_hand(Q, K, V)))
    recomputed = case.reference_with(dependencies={"softmax": uniform_softmax})
    np.testing.assert_allclose(recomputed.arrays[1], np.full((5, 6), 1 / 6))


def test_reference_with_uses_the_cases_own_dependencies(qkv):
    Q, K, V = qkv
    case = attention_case((Q, K, V), {}, split(attention_by_hand(Q, K, V)), dependencies={"softmax": uniform_softmax})
    np.testing.assert_allclose(case.reference_with().arrays[0], np.tile(V.mean(axis=0), (5, 1)))


def test_explicit_dependencies_override_the_cases(qkv):
    Q, K, V = qkv
    case = attention_case((Q, K, V), {}, split(attention_by_hand(Q, K, V)), dependencies={"softmax": uniform_softmax})
    recomputed = case.reference_with(dependencies={"softmax": lambda x, axis=-1: softmax_rows(x)})
    np.testing.assert_allclose(recomputed.arrays[1], attention_by_hand(Q, K, V)[1])


def test_reference_with_an_impossible_change_is_raised(qkv):
    Q, K, V = qkv
    case = attention_case((Q, K, V), {}, split(attention_by_hand(Q, K, V)))
    assert isinstance(case.reference_with(K=K[:, :2]), Raised)


def test_student_with_is_none_when_calls_are_not_allowed(qkv):
    case = attention_case(qkv, {}, split(attention_by_hand(*qkv)))
    assert case.student_with() is None


def test_student_with_calls_the_student_on_changed_arguments(qkv):
    Q, K, V = qkv
    calls = []

    def student(*args, **kwargs):
        calls.append((args, kwargs))
        return attention_by_hand(*args, **kwargs)

    case = attention_case((Q, K, V), {}, split(attention_by_hand(Q, K, V)), call_student=student)
    answer = case.student_with(V=2 * V)
    assert isinstance(answer, Parts) and answer.is_tuple
    np.testing.assert_allclose(answer.arrays[0], 2 * attention_by_hand(Q, K, V)[0])
    np.testing.assert_array_equal(calls[0][0][2], 2 * V)


def test_student_with_stops_after_the_call_budget(qkv):
    calls = []

    def student(*args, **kwargs):
        calls.append(1)
        return attention_by_hand(*args, **kwargs)

    case = attention_case(qkv, {}, split(attention_by_hand(*qkv)), call_student=student)
    answers = [case.student_with() for _ in range(MAX_STUDENT_CALLS + 3)]
    assert len(calls) == MAX_STUDENT_CALLS
    assert all(a is not None for a in answers[:MAX_STUDENT_CALLS])
    assert answers[MAX_STUDENT_CALLS:] == [None] * 3


def test_failed_student_calls_count_against_the_budget(qkv):
    calls = []

    def student(*args, **kwargs):
        calls.append(1)
        raise StudentException("Traceback ...\nValueError: no")

    case = attention_case(qkv, {}, split(attention_by_hand(*qkv)), call_student=student)
    for _ in range(MAX_STUDENT_CALLS + 1):
        assert case.student_with() is None
    assert len(calls) == MAX_STUDENT_CALLS


@pytest.mark.parametrize(
    "error",
    [StudentException("Traceback ...\nZeroDivisionError: x"), ValueError("ragged")],
    ids=["student exception", "value error"],
)
def test_student_with_is_none_when_the_student_fails(qkv, error):
    def student(*args, **kwargs):
        raise error

    case = attention_case(qkv, {}, split(attention_by_hand(*qkv)), call_student=student)
    assert case.student_with() is None


def test_student_with_is_none_for_a_ragged_result(qkv):
    case = attention_case(qkv, {}, split(attention_by_hand(*qkv)), call_student=lambda *a, **k: [[1.0, 2.0], [1.0]])
    assert case.student_with() is None


def softmax_case(x, student) -> Case:
    return Case("softmax", (x,), {}, TOL, split(softmax_rows(x)), student)


def test_matches_within_the_tolerance():
    x = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 1.0]])
    expected = softmax_rows(x)
    case = softmax_case(x, split(expected * (1 + 1e-7)))
    assert case.matches(split(expected))
    assert not case.matches(split(expected * (1 + 1e-3)))


def test_matches_treats_nan_as_equal_to_nan():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    with_nan = np.array([[np.nan, 0.5], [0.2, 0.8]])
    case = softmax_case(x, split(with_nan))
    assert case.matches(split(with_nan.copy()))


def test_matches_is_false_for_no_result_or_an_exception():
    x = np.array([[1.0, 2.0]])
    case = softmax_case(x, split(softmax_rows(x)))
    assert not case.matches(None)
    assert not case.matches(Raised(ValueError("x")))
    raised = softmax_case(x, Raised(ValueError("x")))
    assert not raised.matches(split(softmax_rows(x)))


def test_matches_needs_the_same_structure():
    x = np.array([[1.0, 2.0]])
    case = softmax_case(x, split(softmax_rows(x)))
    assert not case.matches(Parts(True, (softmax_rows(x),)))
    assert not case.matches(split(softmax_rows(x)[0]))


def test_matches_one_part_only(qkv):
    Z, A = attention_by_hand(*qkv)
    case = attention_case(qkv, {}, Parts(True, (Z + 1.0, A)))
    candidate = Parts(True, (Z, A))
    assert not case.matches(candidate)
    assert case.matches(candidate, only_part=1)
    assert not case.matches(candidate, only_part=0)
    assert not case.matches(candidate, only_part=2)


def test_part_matches_compares_one_part_with_an_array(qkv):
    Z, A = attention_by_hand(*qkv)
    case = attention_case(qkv, {}, Parts(True, (Z, A.T)))
    assert case.part_matches(1, A.T)
    assert not case.part_matches(1, A)
    assert not case.part_matches(5, A)


def test_matches_reference_and_differs_from_reference(qkv):
    Z, A = attention_by_hand(*qkv)
    case = attention_case(qkv, {}, Parts(True, (2 * Z, A)))
    assert case.matches_reference(Parts(True, (Z, A)))
    assert not case.matches_reference(Parts(True, (2 * Z, A)))
    assert not case.matches_reference(None)
    assert case.differs_from_reference(Parts(True, (2 * Z, A)))
    assert not case.differs_from_reference(Parts(True, (Z, A)))
    assert not case.differs_from_reference(Raised(ValueError()))


def test_explains_needs_a_candidate_that_differs_from_the_reference_and_equals_the_student(qkv):
    Z, A = attention_by_hand(*qkv)
    wrong = Parts(True, (2 * Z, A))
    assert attention_case(qkv, {}, wrong).explains(Parts(True, (2 * Z, A)))
    assert not attention_case(qkv, {}, wrong).explains(Parts(True, (3 * Z, A)))
    assert not attention_case(qkv, {}, Parts(True, (Z, A))).explains(Parts(True, (Z, A)))
    assert not attention_case(qkv, {}, wrong).explains(None)


def test_explains_one_part_needs_that_part_to_differ_from_the_reference(qkv):
    Z, A = attention_by_hand(*qkv)
    case = attention_case(qkv, {}, Parts(True, (2 * Z, A)))
    candidate = Parts(True, (2 * Z, -A))
    assert case.explains(candidate, only_part=0)
    assert not case.explains(candidate, only_part=1)  # -A is not what the student gave
    assert not case.explains(Parts(True, (Z, A)), only_part=1)  # A is the reference's own part
    assert not case.explains(candidate, only_part=2)


def test_student_part_is_none_when_missing(qkv):
    Z, A = attention_by_hand(*qkv)
    case = attention_case(qkv, {}, Parts(True, (Z, A)))
    assert case.student_part(1) is A
    assert case.student_part(2) is None
    assert attention_case(qkv, {}, Raised(ValueError())).student_part(0) is None
