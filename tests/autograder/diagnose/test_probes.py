"""Behavioural probes: each names its bug on a student result built like a real wrong implementation
would build it, and stays silent on the reference's own result and on unrelated wrong results.

The wrong implementations are written here by hand with numpy; each runs through the
in-process submission double, so an exception reaches the probes as a student exception
and recall probes call the same function again, as they would in the sandbox.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

import attn_reference

from autograder.diagnose.case import MAX_STUDENT_CALLS, Case
from autograder.diagnose.probes import FALLBACK_PROBES, PROBES, arguments, calls, outputs, patterns, scale, softmax
from autograder.diagnose.probes.finding import Finding, own
from autograder.errors import SubmissionError
from autograder.judge.compare import Parts, Raised, Tolerance, reference_function, run, split
from autograder.inputs import RngSeed
from tests.autograder.support import InProcessSubmission

TOL = Tolerance(1e-5, 1e-8)
SDPA = "scaled_dot_product_attention"
MHA = "multi_head_attention"
CONTEXT = "attention_context"
#: Pairwise different sizes, so a wrong dimension never coincides with the right one.
L_Q, L_K, D_K, D_V, BATCH = 5, 6, 4, 3, 2


def normal(shape, seed: str = "", scale: float = 1.0) -> np.ndarray:
    """Reproducible standard normal entries; ``seed`` names the draw."""
    return scale * np.random.default_rng(zlib.crc32(seed.encode()) + 17).standard_normal(shape)


# ---------------------------------------------------------------------------------------
# Cases


def case_of(function: str, args: tuple, kwargs: dict | None = None, *, student=None, result=None,
            recall: bool = False, dependencies: dict | None = None) -> Case:
    """A failed call of ``function``: the student's outcome from ``student`` (a callable) or ``result``.

    ``recall`` lets the probes call ``student`` again (through the in-process double).
    """
    kwargs = dict(kwargs or {})
    reference = run(reference_function(function), args, {**kwargs, **(dependencies or {})})
    assert isinstance(reference, Parts), reference
    call_student = None
    if student is not None:
        submission = InProcessSubmission({function: student})
        try:
            outcome = split(submission.call(function, *args, **kwargs))
        except SubmissionError as error:
            outcome = Raised(error)
        if recall:
            def call_student(*a, **k):
                return submission.call(function, *a, **k)
    else:
        outcome = result if isinstance(result, (Parts, Raised)) else split(result)
    return Case(function, tuple(args), kwargs, TOL, reference, outcome, call_student, dict(dependencies or {}))


def right(function: str, args: tuple, kwargs: dict | None = None) -> Case:
    """A case whose student result is the reference's own (with a recall budget)."""
    return case_of(function, args, kwargs, student=reference_function(function), recall=True)


# ---------------------------------------------------------------------------------------
# Hand-written building blocks (the right computations, which wrong versions alter)


def softmax_along(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(Q, K, V, mask=None, *, divide_by=None, weights_of=softmax_along, values=None, mask_with=None):
    """Scaled dot-product attention with knobs for the wrong versions."""
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / (math.sqrt(Q.shape[-1]) if divide_by is None else divide_by)
    if mask is not None:
        scores = (mask_with or (lambda s, m: np.where(m, s, -np.inf)))(scores, np.asarray(mask))
    A = weights_of(scores)
    return A @ (V if values is None else values(Q, K, V)), A


def unscaled(Q, K, V, mask=None):
    """Attention that forgets to divide by sqrt(d_k): a wrong result unrelated to most probes."""
    return attention(Q, K, V, mask, divide_by=1.0)


def qkv(batch: tuple = ()) -> tuple:
    return (normal(batch + (L_Q, D_K), "Q"), normal(batch + (L_K, D_K), "K"), normal(batch + (L_K, D_V), "V"))


MASK = np.array(
    [[1, 0, 1, 1, 0, 1],
     [0, 1, 1, 0, 1, 0],
     [1, 1, 0, 1, 0, 0],
     [0, 0, 1, 1, 1, 1],
     [1, 0, 0, 1, 1, 0]], dtype=bool)  # (L_q, L_k): every row allows and blocks some key


def split_heads(X, h):
    *batch, n, d_model = X.shape
    return np.swapaxes(X.reshape(*batch, n, h, d_model // h), -2, -3)


def merge_heads(X):
    *batch, h, n, d = X.shape
    return np.swapaxes(X, -2, -3).reshape(*batch, n, h * d)


def mha(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None, *, divide_by=None, head_axis=True,
        weights_of=softmax_along, use=None):
    """Multi-head attention with knobs: ``use`` maps a projection's name to the matrix applied."""
    W = {"W_q": W_q, "W_k": W_k, "W_v": W_v, "W_o": W_o}
    W.update({name: (W[replacement] if isinstance(replacement, str) else replacement(W))
              for name, replacement in (use or {}).items()})
    Q = split_heads(X_q @ W["W_q"], num_heads)
    K = split_heads(X_kv @ W["W_k"], num_heads)
    V = split_heads(X_kv @ W["W_v"], num_heads)
    d_head = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / (math.sqrt(d_head) if divide_by is None else divide_by)
    if mask is not None:
        mask = np.asarray(mask)
        scores = np.where(mask[..., None, :, :] if head_axis else mask, scores, -np.inf)
    A = weights_of(scores)
    return merge_heads(A @ V) @ W["W_o"], A


D_MODEL, HEADS, N_Q, N_KV = 6, 2, 3, 5


def mha_args(batch: tuple = (BATCH,), self_attention: bool = False) -> tuple:
    X_q = normal(batch + (N_Q, D_MODEL), "X_q")
    X_kv = X_q if self_attention else normal(batch + (N_KV, D_MODEL), "X_kv")
    weights = tuple(normal((D_MODEL, D_MODEL), name) for name in ("W_q", "W_k", "W_v", "W_o"))
    return (X_q, X_kv, *weights, HEADS)


def additive(s, H, W_a, U_a, v_a):
    return np.tanh((s @ W_a.T)[..., None, :] + H @ U_a.T) @ v_a


def additive_args(d_s=3, d_h=2, d_a=3, batch=(BATCH,)):
    return (normal(batch + (d_s,), "s"), normal(batch + (L_K, d_h), "H"), normal((d_a, d_s), "W_a"),
            normal((d_a, d_h), "U_a"), normal((d_a,), "v_a"))


def context(scores, H, mask=None, *, weights_of=softmax_along):
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    alpha = weights_of(scores)
    return np.einsum("...t,...td->...d", alpha, H), alpha


PADDING = np.array([[1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 0]], dtype=bool)  # (B, T)


def context_args():
    return normal((BATCH, L_K), "scores", 2.0), normal((BATCH, L_K, D_V), "H")


# ---------------------------------------------------------------------------------------
# finding.own


def test_own_names_a_registered_bug_of_the_functions_family():
    assert own(SDPA, "no_scaling") == [Finding("attention.no_scaling", {})]
    assert own("general_score", "scaled_output", factor="2") == [Finding("luong.scaled_output", {"factor": "2"})]


def test_own_is_silent_for_a_bug_the_family_does_not_register():
    assert own("softmax", "mask_inverted") == []


def test_a_finding_has_no_facts_by_default():
    assert Finding("softmax.no_max_shift").facts == {}


# ---------------------------------------------------------------------------------------
# outputs.outputs_swapped


def test_outputs_swapped_names_a_tuple_in_another_order():
    def student(Q, K, V, mask=None):
        Z, A = attention(Q, K, V, mask)
        return A, Z

    case = case_of(SDPA, qkv(), student=student)
    assert outputs.outputs_swapped(case) == [Finding("call.outputs_swapped", {"expected": "Z, A"})]


def test_outputs_swapped_names_swapped_variances():
    def student(d_k, n_samples, rng):
        q, k = rng.standard_normal((n_samples, d_k)), rng.standard_normal((n_samples, d_k))
        dots = (q * k).sum(axis=1)
        return float(np.var(dots / math.sqrt(d_k))), float(np.var(dots))

    case = case_of("dot_product_variance", (16, 500, RngSeed(3)), student=student)
    assert outputs.outputs_swapped(case) == [Finding("call.outputs_swapped", {"expected": "var_raw, var_scaled"})]


def test_outputs_swapped_silent_on_the_right_order_and_on_single_outputs():
    assert outputs.outputs_swapped(right(SDPA, qkv())) == []
    assert outputs.outputs_swapped(case_of("softmax", (normal((3, 4)),), result=softmax_along(normal((3, 4))).T)) == []


def test_outputs_swapped_silent_when_the_parts_are_wrong_too():
    def student(Q, K, V, mask=None):
        Z, A = attention(Q, K, V, mask, divide_by=1.0)
        return A, Z

    assert outputs.outputs_swapped(case_of(SDPA, qkv(), student=student)) == []


# ---------------------------------------------------------------------------------------
# softmax helpers: the variants, with_softmax, fitted_factor, measured_factor


def test_variants_compute_what_their_names_say():
    x = np.array([[1.0, 2.0, -np.inf], [1000.0, 1001.0, 1002.0]])
    finite = np.array([[0.0, 1.0, 3.0], [-1.0, 2.0, 0.5]])
    e = np.exp(finite - finite.max(axis=1, keepdims=True))
    np.testing.assert_allclose(softmax.unnormalised(finite), e)
    np.testing.assert_allclose(softmax.unshifted(finite), np.exp(finite) / np.exp(finite).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(softmax.masked_as_zero(x)[0], softmax_along([1.0, 2.0, 0.0]))
    np.testing.assert_allclose(softmax.global_normalisation(finite), np.exp(finite - 3) / np.exp(finite - 3).sum())
    np.testing.assert_allclose(softmax.along(0)(finite, axis=-1), softmax_along(finite, axis=0))
    assert np.isnan(softmax.unshifted(x)[1]).all()
    tiny = np.array([[0.0, 1.0], [-1000.0, -999.0]])
    assert np.isnan(softmax.global_shift(tiny)[1]).all()  # 0/0 in the slice far below the global maximum


def test_with_softmax_is_none_for_a_function_that_calls_no_softmax():
    case = case_of("dot_score", (normal(3, "s"), normal((L_K, 3), "H")), result=np.zeros(L_K))
    assert softmax.with_softmax(case, softmax.unnormalised) is None


def test_with_softmax_runs_softmax_itself_as_the_variant():
    x = normal((3, 4), "x")
    case = case_of("softmax", (x,), {"axis": 0}, result=np.zeros((3, 4)))
    produced = softmax.with_softmax(case, softmax.unnormalised)
    np.testing.assert_allclose(produced.arrays[0], np.exp(x - x.max(axis=0)))


def test_fitted_factor_recovers_the_multiplier_of_the_scores():
    logits = normal((4, 7), "logits")
    logits[0, 2] = -np.inf  # masked entries carry no information and do not disturb the fit
    weights = softmax_along(2.5 * logits)
    factor = softmax.fitted_factor(logits, weights, -1, case_of("softmax", (logits,), result=weights))
    assert factor == pytest.approx(2.5, rel=1e-6)


def test_fitted_factor_along_another_axis():
    logits = normal((4, 7), "logits")
    weights = softmax_along(0.5 * logits, axis=0)
    case = case_of("softmax", (logits,), {"axis": 0}, result=weights)
    assert softmax.fitted_factor(logits, weights, 0, case) == pytest.approx(0.5, rel=1e-6)


def test_fitted_factor_is_none_when_no_softmax_of_the_scores_fits():
    logits = normal((4, 7), "logits")
    case = case_of("softmax", (logits,), result=np.zeros((4, 7)))
    unnormalised = np.exp(logits - logits.max(axis=-1, keepdims=True))
    assert softmax.fitted_factor(logits, unnormalised, -1, case) is None
    assert softmax.fitted_factor(np.ones((2, 3)), np.full((2, 3), 1 / 3), -1, case) is None  # no spread
    assert softmax.fitted_factor(logits, softmax_along(logits)[:, :3], -1, case) is None  # shapes differ


def test_measured_factor_of_unscaled_attention_is_sqrt_d_k():
    case = case_of(SDPA, qkv(), student=unscaled)
    assert softmax.measured_factor(case) == pytest.approx(math.sqrt(D_K), rel=1e-6)


def test_measured_factor_is_none_without_a_distribution():
    case = case_of("dot_score", (normal(3, "s"), normal((L_K, 3), "H")), result=np.zeros(L_K))
    assert softmax.measured_factor(case) is None


# ---------------------------------------------------------------------------------------
# softmax.wrong_axis


def test_wrong_axis_names_softmax_normalising_the_first_axis():
    x = normal((2, 3, 4), "x", 2.0)
    case = case_of("softmax", (x,), student=lambda x, axis=-1: softmax_along(x, axis=0))
    assert softmax.wrong_axis(case) == [Finding("softmax.wrong_axis", {"actual": "axis -3", "expected": "axis -1"})]


def test_wrong_axis_names_softmax_ignoring_its_axis_argument():
    x = normal((2, 3, 4), "x", 2.0)
    case = case_of("softmax", (x,), {"axis": 1}, student=lambda x, axis=-1: softmax_along(x, axis=-1))
    assert softmax.wrong_axis(case) == [Finding("softmax.wrong_axis", {"actual": "axis -1", "expected": "axis -2"})]


def test_wrong_axis_names_softmax_that_shifts_along_its_axis_but_sums_along_the_last():
    def student(x, axis=-1):
        e = np.exp(x - np.max(x, axis=axis, keepdims=True))
        return e / np.sum(e, axis=-1, keepdims=True)  # no softmax along any one axis, but rows sum to 1

    case = case_of("softmax", (normal((3, 4, 5), "x", 2.0),), {"axis": 0}, student=student)
    assert softmax.wrong_axis(case) == [Finding("softmax.wrong_axis", {"actual": "axis -1", "expected": "axis -3"})]


def test_wrong_axis_silent_on_weights_that_sum_to_one_along_no_single_other_axis():
    x = normal((3, 4, 5), "x", 2.0)
    global_sum = case_of("softmax", (x,), {"axis": 0}, student=lambda x, axis=-1: np.exp(x) / np.exp(x).sum())
    assert softmax.wrong_axis(global_sum) == []
    square = normal((4, 4), "square")  # rows and columns of doubly stochastic weights both sum to 1: which axis?
    doubly = np.full((4, 4), 0.25)
    assert softmax.wrong_axis(case_of("softmax", (square,), {"axis": 0}, result=doubly)) == []


def test_wrong_axis_names_attention_normalising_over_the_queries():
    def student(Q, K, V, mask=None):
        return attention(Q, K, V, mask, weights_of=lambda s: softmax_along(s, axis=-2))

    case = case_of(SDPA, qkv(), student=student)
    assert softmax.wrong_axis(case) == [
        Finding("attention.wrong_axis", {"actual": "L_q (axis -2)", "expected": "L_k (axis -1)"})
    ]


def test_wrong_axis_names_heads_normalising_over_the_heads():
    student = lambda *a, **k: mha(*a, **k, weights_of=lambda s: softmax_along(s, axis=-3))  # noqa: E731
    case = case_of(MHA, mha_args(), student=student)
    assert softmax.wrong_axis(case) == [
        Finding("mha.wrong_axis", {"actual": "num_heads (axis -3)", "expected": "n_kv (axis -1)"})
    ]


def test_wrong_axis_silent_on_the_right_axis_and_on_other_bugs():
    assert softmax.wrong_axis(right(SDPA, qkv())) == []
    wrong = case_of(SDPA, qkv(), student=unscaled)
    assert softmax.wrong_axis(wrong) == []
    assert softmax.wrong_axis(case_of("dot_score", (normal(3, "s"), normal((L_K, 3), "H")), result=np.zeros(L_K))) == []


# ---------------------------------------------------------------------------------------
# softmax.variants


def test_variants_names_softmax_without_the_division():
    x = normal((3, 5), "x")
    case = case_of("softmax", (x,), student=lambda x, axis=-1: np.exp(x - np.max(x, axis=axis, keepdims=True)))
    assert softmax.variants(case) == [Finding("softmax.not_normalized", {})]


def test_variants_names_softmax_without_the_max_shift():
    x = 1000.0 + normal((3, 5), "x")
    case = case_of("softmax", (x,), student=lambda x, axis=-1: np.exp(x) / np.sum(np.exp(x), axis=axis, keepdims=True))
    assert softmax.variants(case) == [Finding("softmax.no_max_shift", {})]


def test_variants_names_softmax_divided_by_the_sum_of_every_entry():
    x = normal((3, 5), "x")

    def student(x, axis=-1):
        e = np.exp(x - np.max(x))
        return e / np.sum(e)

    assert softmax.variants(case_of("softmax", (x,), student=student)) == [Finding("softmax.global_normalization", {})]


def test_variants_names_softmax_shifted_by_one_global_maximum():
    x = np.array([[1000.0, 1001.0, 1002.0], [0.0, 1.0, 2.0]])

    def student(x, axis=-1):
        e = np.exp(x - np.max(x))
        return e / np.sum(e, axis=axis, keepdims=True)

    assert softmax.variants(case_of("softmax", (x,), student=student)) == [Finding("softmax.max_not_per_slice", {})]


def test_variants_names_attention_multiplying_the_scores_by_the_mask():
    student = lambda Q, K, V, mask=None: attention(Q, K, V, mask, mask_with=lambda s, m: s * m)  # noqa: E731
    case = case_of(SDPA, qkv(), {"mask": MASK}, student=student)
    assert softmax.variants(case) == [Finding("attention.multiplicative_mask", {})]


def test_variants_names_a_context_vector_without_the_division():
    student = lambda scores, H, mask=None: context(scores, H, mask, weights_of=softmax.unnormalised)  # noqa: E731
    case = case_of(CONTEXT, context_args(), student=student)
    assert softmax.variants(case) == [Finding("context.not_normalized", {})]


def test_variants_silent_on_the_right_weights_and_on_scaled_scores():
    assert softmax.variants(right("softmax", (normal((3, 5), "x"),))) == []
    x = normal((3, 5), "x")
    assert softmax.variants(case_of("softmax", (x,), student=lambda x, axis=-1: softmax_along(2 * x, axis))) == []


# ---------------------------------------------------------------------------------------
# scale.classify and scale.attention_scale


OTHERS = {"d_v": 3, "L_q": 5, "L_k": 6}


@pytest.mark.parametrize(
    "function, measured, expected",
    [
        (SDPA, 2.0, []),
        (SDPA, 1.0, [Finding("attention.no_scaling", {})]),
        (SDPA, 4.0, [Finding("attention.scale_by_dk", {})]),
        (SDPA, math.sqrt(3), [Finding("attention.scale_by_wrong_dim", {"dimension": "d_v"})]),
        (SDPA, math.sqrt(6), [Finding("attention.scale_by_wrong_dim", {"dimension": "L_k"})]),
        (SDPA, 8.0, [Finding("attention.hard_coded_scale", {"scale": "8", "d_k_it_fits": "64"}, key="8")]),
        (SDPA, 2.5, [Finding("attention.wrong_scale", {"scale": "2.5", "expected": "2", "d_k": "4"})]),
        (MHA, 4.0, [Finding("mha.wrong_scale", {"scale": "4", "expected": "2", "d_k": "4"})]),
        (MHA, math.sqrt(8), [Finding("mha.scale_by_d_model", {})]),
    ],
    ids=["right", "none", "d_k", "d_v", "L_k", "constant", "other", "mha d_head", "mha d_model"],
)
def test_classify_names_the_scale_that_was_measured(function, measured, expected):
    others = {"d_model": 8, "num_heads": 2} if function == MHA else OTHERS
    assert scale.classify(function, measured, D_K, others) == expected


def test_classify_names_d_k_over_two_written_as_d_k_to_the_one_half():
    # d_k ** 1/2 is (d_k ** 1) / 2: 5 for d_k = 10 (whose square, 25, would also read as a constant's)
    assert scale.classify(SDPA, 5.0, 10, OTHERS) == [
        Finding("attention.half_dk", {"scale": "5", "expected": "3.162", "d_k": "10"})]
    assert scale.classify(MHA, 3.0, 6, {})[0].id == "mha.half_dk"
    assert {f.id for f in scale.classify(SDPA, 1.0, 2, OTHERS)} == {"attention.half_dk", "attention.no_scaling"}


def test_half_d_k_beside_the_root_of_an_equal_size_is_left_undecided():
    # d_k = 6, d_v = 9: d_k / 2 = sqrt(d_v) = 3; without a re-draw that tells them apart neither is named
    found = scale.classify(SDPA, 3.0, 6, {"d_v": 9})
    assert {f.id for f in found} == {"attention.half_dk", "attention.scale_by_wrong_dim"}
    case = case_of(SDPA, qkv(), student=unscaled)
    assert scale.undecided_scales(case, found) == []
    assert scale.undecided_scales(case, found[:1]) == found[:1]


def test_no_scaling_is_left_undecided_where_the_rounded_root_of_d_k_is_one_too():
    Q, K, V = (normal((5, 3), "q3"), normal((6, 3), "k3"), normal((6, 4), "v3"))  # d_k = 3: isqrt(3) = 1
    none = [Finding("attention.no_scaling", {})]
    assert scale.undecided_scales(case_of(SDPA, (Q, K, V), student=unscaled), none) == []
    assert scale.undecided_scales(case_of(SDPA, qkv(), student=unscaled), none) == none


def test_classify_prefers_d_k_to_a_size_whose_root_is_the_same_number():
    assert scale.classify(SDPA, 4.0, 4, {"L_k": 16}) == [Finding("attention.scale_by_dk", {})]


def test_attention_scale_names_attention_without_scaling():
    case = case_of(SDPA, qkv(), student=unscaled)
    assert scale.attention_scale(case) == [Finding("attention.no_scaling", {})]


def test_attention_scale_names_attention_divided_by_d_k():
    case = case_of(SDPA, qkv(), student=lambda Q, K, V, mask=None: attention(Q, K, V, mask, divide_by=Q.shape[-1]))
    assert scale.attention_scale(case) == [Finding("attention.scale_by_dk", {})]


def test_attention_scale_names_the_size_of_the_values():
    student = lambda Q, K, V, mask=None: attention(Q, K, V, mask, divide_by=math.sqrt(V.shape[-1]))  # noqa: E731
    case = case_of(SDPA, qkv(), {"mask": MASK}, student=student)
    assert scale.attention_scale(case) == [Finding("attention.scale_by_wrong_dim", {"dimension": "d_v"})]


def test_attention_scale_names_the_number_of_queries():
    student = lambda Q, K, V, mask=None: attention(Q, K, V, mask, divide_by=math.sqrt(Q.shape[1]))  # noqa: E731
    case = case_of(SDPA, qkv((3,)), student=student)  # Q.shape[1] is L_q here
    assert scale.attention_scale(case) == [Finding("attention.scale_by_wrong_dim", {"dimension": "L_q"})]


def test_attention_scale_names_the_second_axis_of_doubly_batched_queries():
    student = lambda Q, K, V, mask=None: attention(Q, K, V, mask, divide_by=math.sqrt(Q.shape[1]))  # noqa: E731
    case = case_of(SDPA, qkv((BATCH, 7)), student=student)
    assert scale.attention_scale(case) == [Finding("attention.scale_by_wrong_dim", {"dimension": "Q.shape[1]"})]


def test_attention_scale_names_a_hard_coded_constant():
    case = case_of(SDPA, qkv(), student=lambda Q, K, V, mask=None: attention(Q, K, V, mask, divide_by=8.0))
    assert scale.attention_scale(case) == [Finding("attention.hard_coded_scale", {"scale": "8", "d_k_it_fits": "64"}, key="8")]


@pytest.mark.parametrize("d_k, rounded", [(6, 2), (8, 3), (3, 2)])
def test_classify_names_a_square_root_rounded_to_a_whole_number(d_k, rounded):
    found = scale.classify(SDPA, float(rounded), d_k, OTHERS)
    assert found == [Finding("attention.integer_sqrt", {"scale": str(rounded), "expected": f"{math.sqrt(d_k):.4g}"})]
    assert scale.classify(MHA, float(rounded), d_k, {})[0].id == "mha.integer_sqrt"


def test_classify_silent_about_rounding_where_the_root_is_whole_or_the_scale_is_not_a_rounding():
    assert scale.classify(SDPA, 3.0, 9, {}) == []  # sqrt(9) is 3: right
    assert scale.classify(SDPA, 3.0, 6, {})[0].id != "attention.integer_sqrt"  # 3 is neither floor nor round of 2.449


def test_attention_scale_names_multi_head_attention_scaled_by_d_model():
    case = case_of(MHA, mha_args(), student=lambda *a, **k: mha(*a, **k, divide_by=math.sqrt(D_MODEL)))
    assert scale.attention_scale(case) == [Finding("mha.scale_by_d_model", {})]


def test_attention_scale_silent_on_the_right_scale_an_ignored_mask_and_other_functions():
    assert scale.attention_scale(right(SDPA, qkv())) == []
    ignored = case_of(SDPA, qkv(), {"mask": MASK}, student=lambda Q, K, V, mask=None: attention(Q, K, V))
    assert scale.attention_scale(ignored) == []
    scaled_context = case_of(CONTEXT, context_args(), student=lambda s, H, mask=None: context(2 * s, H, mask))
    assert scale.attention_scale(scaled_context) == []


# ---------------------------------------------------------------------------------------
# softmax.scaled_scores


def test_scaled_scores_names_softmax_of_doubled_scores():
    x = normal((3, 5), "x")
    case = case_of("softmax", (x,), student=lambda x, axis=-1: softmax_along(2 * x, axis))
    assert softmax.scaled_scores(case) == [Finding("softmax.scaled_scores", {"factor": "2"})]


def test_scaled_scores_names_a_context_vector_of_halved_scores():
    case = case_of(CONTEXT, context_args(), {"mask": PADDING},
                   student=lambda s, H, mask=None: context(s / 2, H, mask))
    assert softmax.scaled_scores(case) == [Finding("context.scaled_scores", {"factor": "0.5"})]


def test_scaled_scores_silent_on_right_and_unnormalised_weights_and_on_attention():
    assert softmax.scaled_scores(right("softmax", (normal((3, 5), "x"),))) == []
    x = normal((3, 5), "x")
    unnormalised = case_of("softmax", (x,), student=lambda x, axis=-1: np.exp(x - x.max(axis=axis, keepdims=True)))
    assert softmax.scaled_scores(unnormalised) == []
    wrong = case_of(SDPA, qkv(), student=unscaled)
    assert softmax.scaled_scores(wrong) == []  # attention scales are the job of scale.attention_scale


def test_scaled_scores_silent_on_uniform_weights_from_flattened_scores():
    x = 1e4 + normal((3, 5), "x", 50.0)  # every score above a clip at 100: the clipped rows are all equal
    clipped = case_of("softmax", (x,), student=lambda x, axis=-1: softmax_along(np.clip(x, -100, 100), axis))
    assert softmax.measured_factor(clipped) is not None and abs(softmax.measured_factor(clipped)) < 1e-3  # it fits ~0
    assert softmax.scaled_scores(clipped) == []


@pytest.mark.parametrize("prepare", [lambda x: np.clip(x, -100, 100), lambda x: np.minimum(x, 30.0)],
                         ids=["clipped", "capped"])
def test_shifted_beforehand_names_a_softmax_that_is_right_only_on_pre_shifted_scores(prepare):
    x = 1e3 + normal((3, 5), "x", 40.0)
    student = lambda x, axis=-1: softmax_along(prepare(x), axis)  # noqa: E731
    case = case_of("softmax", (x,), student=student, recall=True)
    assert softmax.shifted_beforehand(case) == [Finding("softmax.not_shift_invariant", {})]
    assert softmax.shifted_beforehand in FALLBACK_PROBES


def test_shifted_beforehand_silent_on_overflow_right_results_and_other_bugs():
    x = 1e3 + normal((3, 5), "x", 40.0)
    unshifted = case_of("softmax", (x,), student=lambda x, axis=-1: np.exp(x) / np.exp(x).sum(axis, keepdims=True),
                        recall=True)
    assert softmax.shifted_beforehand(unshifted) == []  # inf / inf: overflow's to name
    assert softmax.shifted_beforehand(right("softmax", (x,))) == []
    doubled = case_of("softmax", (x,), student=lambda x, axis=-1: softmax_along(2 * x, axis), recall=True)
    assert softmax.shifted_beforehand(doubled) == []  # wrong on shifted scores too


# ---------------------------------------------------------------------------------------
# arguments.mask_probes


def test_mask_probes_names_an_inverted_mask():
    case = case_of(SDPA, qkv(), {"mask": MASK}, student=lambda Q, K, V, mask=None: attention(Q, K, V, ~mask))
    assert arguments.mask_probes(case) == [Finding("attention.mask_inverted", {})]


def test_mask_probes_names_an_ignored_mask():
    case = case_of(SDPA, qkv(), {"mask": MASK}, student=lambda Q, K, V, mask=None: attention(Q, K, V))
    assert arguments.mask_probes(case) == [Finding("attention.mask_ignored", {})]


def test_mask_probes_names_a_transposed_square_mask():
    Q, K, V = normal((L_Q, D_K), "Q"), normal((L_Q, D_K), "K"), normal((L_Q, D_V), "V")
    square = MASK[:, :L_Q]
    case = case_of(SDPA, (Q, K, V, square), student=lambda Q, K, V, mask=None: attention(Q, K, V, mask.T))
    assert arguments.mask_probes(case) == [Finding("attention.mask_transposed", {})]


def test_mask_probes_names_masking_after_the_softmax():
    def student(Q, K, V, mask=None):
        A = softmax_along(Q @ K.T / math.sqrt(Q.shape[-1])) * mask
        return A @ V, A

    case = case_of(SDPA, qkv(), {"mask": MASK}, student=student)
    assert arguments.mask_probes(case) == [Finding("attention.mask_after_softmax", {})]


def test_mask_probes_names_a_context_vector_ignoring_padding():
    case = case_of(CONTEXT, context_args(), {"mask": PADDING}, student=lambda s, H, mask=None: context(s, H))
    assert arguments.mask_probes(case) == [Finding("context.mask_ignored", {})]


def test_mask_probes_names_a_context_vector_masking_the_states_instead_of_the_scores():
    def zeroed_states(scores, H, mask=None):
        return context(scores, H if mask is None else H * np.asarray(mask)[..., None])

    case = case_of(CONTEXT, context_args(), {"mask": PADDING}, student=zeroed_states)
    assert arguments.mask_probes(case) == [Finding("context.mask_on_values", {})]
    ignored = case_of(CONTEXT, context_args(), {"mask": PADDING}, student=lambda scores, H, mask=None: context(scores, H))
    assert arguments.mask_probes(ignored) == [Finding("context.mask_ignored", {})]  # the states kept: another bug


def test_mask_probes_names_multi_head_attention_with_an_inverted_0_1_mask():
    mask = MASK[:N_Q, :N_KV].astype(np.int64)
    case = case_of(MHA, mha_args(), {"mask": mask}, student=lambda *a, mask=None: mha(*a, mask=1 - mask))
    assert arguments.mask_probes(case) == [Finding("mha.mask_inverted", {})]


def test_mask_probes_silent_without_a_mask_and_on_other_bugs():
    assert arguments.mask_probes(right(SDPA, qkv())) == []
    assert arguments.mask_probes(right(SDPA, qkv(), {"mask": MASK})) == []
    wrong = case_of(SDPA, qkv(), {"mask": MASK}, student=unscaled)
    assert arguments.mask_probes(wrong) == []


# ---------------------------------------------------------------------------------------
# arguments.mask_without_head_axis


def test_mask_without_head_axis_names_a_batch_axis_lined_up_with_the_heads():
    mask = np.stack([MASK[:N_Q, :N_KV], MASK[1 : N_Q + 1, 1:]])  # (B, n_q, n_kv), B == num_heads
    student = lambda *a, mask=None: mha(*a, mask=mask, head_axis=False)  # noqa: E731
    case = case_of(MHA, mha_args(), {"mask": mask}, student=student, recall=True)
    assert arguments.mask_without_head_axis(case) == [Finding("mha.mask_head_axis", {})]


def test_mask_without_head_axis_silent_when_the_mask_is_ignored_or_no_recall():
    mask = np.stack([MASK[:N_Q, :N_KV], MASK[1 : N_Q + 1, 1:]])
    ignored = case_of(MHA, mha_args(), {"mask": mask}, student=lambda *a, mask=None: mha(*a), recall=True)
    assert arguments.mask_without_head_axis(ignored) == []
    no_recall = case_of(MHA, mha_args(), {"mask": mask}, student=lambda *a, mask=None: mha(*a, mask=mask, head_axis=False))
    assert arguments.mask_without_head_axis(no_recall) == []
    assert arguments.mask_without_head_axis(right(SDPA, qkv(), {"mask": MASK})) == []


# ---------------------------------------------------------------------------------------
# arguments.weight_probes


def test_weight_probes_names_a_transposed_square_weight():
    args = additive_args(d_s=3, d_h=2, d_a=3)  # W_a square, U_a not
    student = lambda s, H, W_a, U_a, v_a: additive(s, H, W_a.T, U_a, v_a)  # noqa: E731
    case = case_of("additive_score", args, student=student)
    assert arguments.weight_probes(case) == [Finding("additive.weight_transposed", {"weight": "W_a"})]


def test_weight_probes_names_the_general_score_transposed_with_its_own_id():
    s, H, W_a = normal((BATCH, 3), "s"), normal((BATCH, L_K, 3), "H"), normal((3, 3), "W_a")
    student = lambda s, H, W_a: np.einsum("...d,de,...te->...t", s, W_a.T, H)  # noqa: E731
    case = case_of("general_score", (s, H, W_a), student=student)
    assert arguments.weight_probes(case) == [Finding("luong.general_transposed", {})]


def test_weight_probes_names_swapped_additive_weights():
    args = additive_args(d_s=3, d_h=3, d_a=4)  # W_a and U_a of one (non-square) shape
    student = lambda s, H, W_a, U_a, v_a: additive(s, H, U_a, W_a, v_a)  # noqa: E731
    assert arguments.weight_probes(case_of("additive_score", args, student=student)) == [
        Finding("additive.swapped_weights", {})
    ]


def test_weight_probes_names_a_missing_output_projection():
    case = case_of(MHA, mha_args(), student=lambda *a, **k: mha(*a, **k, use={"W_o": lambda W: np.eye(D_MODEL)}))
    assert arguments.weight_probes(case) == [Finding("mha.missing_output_projection", {})]


def test_weight_probes_names_a_missing_query_projection():
    case = case_of(MHA, mha_args(), student=lambda *a, **k: mha(*a, **k, use={"W_q": lambda W: np.eye(D_MODEL)}))
    assert arguments.weight_probes(case) == [Finding("mha.missing_projection", {"weight": "W_q"})]


def test_weight_probes_names_keys_and_values_projections_swapped():
    case = case_of(MHA, mha_args(), student=lambda *a, **k: mha(*a, **k, use={"W_k": "W_v", "W_v": "W_k"}))
    assert arguments.weight_probes(case) == [Finding("mha.weights_swapped", {"used": "W_v", "expected": "W_k"})]


def test_weight_probes_names_one_weight_used_in_place_of_another():
    case = case_of(MHA, mha_args(), student=lambda *a, **k: mha(*a, **k, use={"W_k": "W_q"}))
    assert arguments.weight_probes(case) == [Finding("mha.weights_swapped", {"used": "W_q", "expected": "W_k"})]


def test_weight_probes_names_every_weight_transposed_at_once():
    transposed = {name: (lambda n: lambda W: W[n].T)(name) for name in ("W_q", "W_k", "W_v", "W_o")}
    case = case_of(MHA, mha_args(), student=lambda *a, **k: mha(*a, **k, use=transposed))
    assert arguments.weight_probes(case) == [Finding("mha.weight_transposed", {"weight": "W_q, W_k, W_v, W_o"})]


def test_weight_probes_silent_on_right_results_and_functions_without_weights():
    assert arguments.weight_probes(right(MHA, mha_args())) == []
    assert arguments.weight_probes(case_of(SDPA, qkv(), student=unscaled)) == []
    wrong = case_of(MHA, mha_args(), student=lambda *a, **k: mha(*a, **k, divide_by=1.0))
    assert arguments.weight_probes(wrong) == []


# ---------------------------------------------------------------------------------------
# arguments.expects_transposed_weights


def test_expects_transposed_weights_names_a_function_that_only_runs_on_transposed_weights():
    args = additive_args(d_s=3, d_h=2, d_a=4)  # W_a (4, 3) is not square: s @ W_a fails
    student = lambda s, H, W_a, U_a, v_a: np.tanh((s @ W_a)[..., None, :] + H @ U_a.T) @ v_a  # noqa: E731
    case = case_of("additive_score", args, student=student, recall=True)
    assert isinstance(case.student, Raised)
    assert arguments.expects_transposed_weights(case) == [Finding("additive.weight_transposed", {"weight": "W_a"})]


def test_expects_transposed_weights_silent_for_a_result_or_a_function_that_always_fails():
    args = additive_args(d_s=3, d_h=2, d_a=4)
    returned = case_of("additive_score", args, student=lambda *a: additive(*a) * 2, recall=True)
    assert arguments.expects_transposed_weights(returned) == []

    def always_fails(*a):
        raise ValueError("no")

    assert arguments.expects_transposed_weights(case_of("additive_score", args, student=always_fails, recall=True)) == []


def test_expects_transposed_weights_spends_one_recall_per_non_square_weight():
    seen = []

    def always_fails(*a):
        seen.append(1)
        raise ValueError("no")

    args = additive_args(d_s=3, d_h=2, d_a=3)  # W_a square (the weight probes see it), U_a not
    case = case_of("additive_score", args, student=always_fails, recall=True)
    seen.clear()
    arguments.expects_transposed_weights(case)
    assert len(seen) == 1


# ---------------------------------------------------------------------------------------
# arguments.vector_probes


def test_vector_probes_names_an_additive_score_summing_its_features():
    student = lambda s, H, W_a, U_a, v_a: np.tanh((s @ W_a.T)[..., None, :] + H @ U_a.T).sum(axis=-1)  # noqa: E731
    case = case_of("additive_score", additive_args(), student=student)
    assert arguments.vector_probes(case) == [Finding("additive.ignores_v_a", {})]


def test_vector_probes_names_a_concat_score_summing_its_features():
    s, H = normal((BATCH, 3), "s"), normal((BATCH, L_K, 2), "H")
    W_a, v_a = normal((4, 5), "W_a"), normal(4, "v_a")
    student = lambda s, H, W_a, v_a: np.tanh((s @ W_a[:, :3].T)[..., None, :] + H @ W_a[:, 3:].T).sum(-1)  # noqa: E731
    case = case_of("concat_score", (s, H, W_a, v_a), student=student)
    assert arguments.vector_probes(case) == [Finding("luong.ignores_v_a", {})]


def test_vector_probes_silent_on_the_right_score_and_without_v_a():
    assert arguments.vector_probes(right("additive_score", additive_args())) == []
    missing_tanh = case_of("additive_score", additive_args(),
                           student=lambda s, H, W_a, U_a, v_a: ((s @ W_a.T)[..., None, :] + H @ U_a.T) @ v_a)
    assert arguments.vector_probes(missing_tanh) == []
    assert arguments.vector_probes(case_of(SDPA, qkv(), student=unscaled)) == []


# ---------------------------------------------------------------------------------------
# arguments.confused_arguments


def test_confused_arguments_names_keys_and_values_taken_from_the_queries():
    case = case_of(MHA, mha_args(), student=lambda X_q, X_kv, *rest, **k: mha(X_q, X_q, *rest, **k))
    assert arguments.confused_arguments(case) == [Finding("mha.keys_from_queries", {})]


def test_confused_arguments_silent_for_self_attention_and_other_bugs():
    self_attention = mha_args(self_attention=True)
    wrong = case_of(MHA, self_attention, student=lambda *a, **k: mha(*a, **k, divide_by=1.0))
    assert arguments.confused_arguments(wrong) == []
    assert arguments.confused_arguments(case_of(MHA, mha_args(), student=lambda *a, **k: mha(*a, **k, divide_by=1.0))) == []


# ---------------------------------------------------------------------------------------
# arguments.rewritten_arguments


def concat_args(d_s=3, d_h=2, d_a=4):
    return normal((BATCH, d_s), "s"), normal((BATCH, L_K, d_h), "H"), normal((d_a, d_s + d_h), "W_a"), normal(d_a, "v_a")


def test_rewritten_arguments_names_the_concatenation_in_the_wrong_order():
    def student(s, H, W_a, v_a):  # [h_j; s]: the first d_h columns multiply h_j
        d_h = H.shape[-1]
        return additive(s, H, W_a[:, d_h:], W_a[:, :d_h], v_a)

    assert arguments.rewritten_arguments(case_of("concat_score", concat_args(), student=student)) == [
        Finding("luong.concat_order", {})
    ]


def test_rewritten_arguments_silent_on_the_right_order_and_for_other_functions():
    assert arguments.rewritten_arguments(right("concat_score", concat_args())) == []
    assert arguments.rewritten_arguments(case_of("additive_score", additive_args(), student=lambda *a: -additive(*a))) == []


# ---------------------------------------------------------------------------------------
# outputs.constant_factor and outputs.scaled_part


def test_constant_factor_measures_one_multiplier():
    expected = normal((3, 4), "e")
    case = case_of("softmax", (expected,), result=expected)
    assert outputs.constant_factor(expected, -3 * expected, case) == pytest.approx(-3)
    assert outputs.constant_factor(expected, expected * (1 + 1e-7), case) is None  # that is 1
    assert outputs.constant_factor(expected, np.zeros_like(expected), case) is None
    assert outputs.constant_factor(expected, expected + 1, case) is None
    assert outputs.constant_factor(expected, 2 * expected[:2], case) is None


def test_scaled_part_names_a_dot_score_scaled_by_a_number():
    s, H = normal((BATCH, 3), "s"), normal((BATCH, L_K, 3), "H")
    case = case_of("dot_score", (s, H), student=lambda s, H: 2 * np.einsum("...d,...td->...t", s, H))
    assert outputs.scaled_part(case) == [Finding("luong.scaled_output", {"factor": "2"})]


def test_scaled_part_names_the_size_behind_the_factor():
    s, H = normal((BATCH, 3), "s"), normal((BATCH, L_K, 3), "H")
    case = case_of("dot_score", (s, H), student=lambda s, H: np.einsum("...d,...td->...t", s, H) / math.sqrt(3))
    assert outputs.scaled_part(case) == [Finding("luong.scaled_output", {"factor": "1/sqrt(d_s) = 0.5774"})]


def test_scaled_part_names_an_additive_score_scaled_by_a_number():
    case = case_of("additive_score", additive_args(), student=lambda *a: 0.3 * additive(*a))
    assert outputs.scaled_part(case) == [Finding("additive.scaled_output", {"factor": "0.3"})]


def test_scaled_part_names_softmax_weights_scaled_after_normalising():
    x = normal((3, 5), "x")
    case = case_of("softmax", (x,), student=lambda x, axis=-1: softmax_along(x, axis) / 2)
    assert outputs.scaled_part(case) == [Finding("softmax.not_normalized", {})]


def test_scaled_part_names_attention_weights_divided_by_sqrt_d_k_after_the_softmax():
    def student(Q, K, V, mask=None):
        A = softmax_along(Q @ K.T / math.sqrt(Q.shape[-1])) / math.sqrt(Q.shape[-1])
        return A @ V, A

    assert outputs.scaled_part(case_of(SDPA, qkv(), student=student)) == [Finding("attention.scale_after_softmax", {})]


def test_scaled_part_silent_on_right_results_and_per_row_errors():
    assert outputs.scaled_part(right("dot_score", (normal((BATCH, 3), "s"), normal((BATCH, L_K, 3), "H")))) == []
    x = normal((3, 5), "x")
    unnormalised = case_of("softmax", (x,), student=lambda x, axis=-1: np.exp(x - x.max(axis=axis, keepdims=True)))
    assert outputs.scaled_part(unnormalised) == []


# ---------------------------------------------------------------------------------------
# outputs.transposed_part


def test_transposed_part_names_attention_weights_returned_transposed():
    def student(Q, K, V, mask=None):
        Z, A = attention(Q, K, V, mask)
        return Z, np.swapaxes(A, -1, -2)

    assert outputs.transposed_part(case_of(SDPA, qkv((BATCH,)), student=student)) == [
        Finding("attention.transposed_weights", {})
    ]


def test_transposed_part_silent_on_right_weights_and_for_softmax():
    assert outputs.transposed_part(right(SDPA, qkv())) == []
    x = normal((4, 4), "x")
    assert outputs.transposed_part(case_of("softmax", (x,), student=lambda x, axis=-1: softmax_along(x).T)) == []


# ---------------------------------------------------------------------------------------
# outputs.values_confused


def test_values_confused_names_weights_applied_to_the_keys():
    case = case_of(SDPA, qkv(), student=lambda Q, K, V, mask=None: attention(Q, K, V, mask, values=lambda Q, K, V: K))
    assert outputs.values_confused(case) == [Finding("attention.values_confused", {"used": "K"})]


def test_values_confused_names_weights_applied_to_the_queries():
    Q, K, V = normal((L_Q, D_K), "Q"), normal((L_Q, D_K), "K"), normal((L_Q, D_V), "V")
    case = case_of(SDPA, (Q, K, V), student=lambda Q, K, V, mask=None: attention(Q, K, V, values=lambda Q, K, V: Q))
    assert outputs.values_confused(case) == [Finding("attention.values_confused", {"used": "Q"})]


def test_values_confused_silent_when_the_weights_are_wrong_or_z_is_wrong_otherwise():
    keys = case_of(SDPA, qkv(), student=lambda Q, K, V, mask=None: attention(Q, K, V, divide_by=1.0, values=lambda Q, K, V: K))
    assert outputs.values_confused(keys) == []
    doubled = case_of(SDPA, qkv(), student=lambda Q, K, V, mask=None: attention(Q, K, V, values=lambda Q, K, V: 2 * V))
    assert outputs.values_confused(doubled) == []


# ---------------------------------------------------------------------------------------
# outputs.averaged_heads


def test_averaged_heads_names_head_weights_averaged_into_one():
    def student(*args, **kwargs):
        Y, A = mha(*args, **kwargs)
        return Y, A.mean(axis=-3)

    assert outputs.averaged_heads(case_of(MHA, mha_args(), student=student)) == [Finding("mha.averaged_heads", {})]


def test_averaged_heads_silent_on_every_heads_weights_and_for_single_head_attention():
    assert outputs.averaged_heads(right(MHA, mha_args())) == []
    assert outputs.averaged_heads(case_of(SDPA, qkv(), student=unscaled)) == []


# ---------------------------------------------------------------------------------------
# patterns.causal_mask_pattern


@pytest.mark.parametrize(
    "wrong, suffix",
    [
        (lambda n: np.triu(np.ones((n, n), dtype=bool)), "upper_triangular"),
        (lambda n: np.tril(np.ones((n, n), dtype=bool), k=-1), "excludes_diagonal"),
        (lambda n: np.triu(np.ones((n, n), dtype=bool), k=1), "inverted"),
        (lambda n: np.tril(np.ones((n, n))), "not_boolean"),
        (lambda n: np.tri(n, dtype=np.int64), "not_boolean"),
        (lambda n: np.where(np.tri(n, dtype=bool), 0.0, -np.inf), "not_boolean"),
    ],
    ids=["upper", "strictly lower", "complement", "float 0/1", "int 0/1", "additive"],
)
def test_causal_mask_pattern_names_each_wrong_pattern(wrong, suffix):
    case = case_of("causal_mask", (5,), student=wrong)
    assert patterns.causal_mask_pattern(case) == [Finding(f"causal_mask.{suffix}", {})]


@pytest.mark.parametrize("offset, boundary", [(1, "j <= i + 1"), (2, "j <= i + 2"), (-2, "j <= i - 2")])
def test_causal_mask_pattern_names_a_boundary_shifted_off_the_diagonal(offset, boundary):
    case = case_of("causal_mask", (6,), student=lambda n: np.tri(n, k=offset, dtype=bool))  # rows counted from 1: k=1
    assert patterns.causal_mask_pattern(case) == [Finding("causal_mask.shifted_diagonal", {"boundary": boundary})]


def test_causal_mask_pattern_silent_on_an_unrelated_pattern_or_shape():
    checkerboard = lambda n: (np.add.outer(np.arange(n), np.arange(n)) % 2 == 0)  # noqa: E731
    assert patterns.causal_mask_pattern(case_of("causal_mask", (5,), student=checkerboard)) == []
    assert patterns.causal_mask_pattern(case_of("causal_mask", (5,), student=lambda n: np.tri(n + 1, dtype=bool))) == []
    assert patterns.causal_mask_pattern(case_of("softmax", (normal((3, 3), "x"),), result=np.tri(3, dtype=bool))) == []


# ---------------------------------------------------------------------------------------
# patterns.heads_arrangement


def test_heads_arrangement_names_split_heads_without_the_swap():
    X = normal((3, 8), "X")
    case = case_of("split_heads", (X, 2), student=lambda X, h: X.reshape(3, h, 8 // h))
    assert patterns.heads_arrangement(case) == [
        Finding("heads.axes_order", {"shapes": " (shape (3, 2, 4) instead of (2, 3, 4))"})
    ]


def test_heads_arrangement_names_merge_heads_with_its_axes_swapped():
    X = normal((2, 3, 4), "X")  # (h, n, d_head)
    case = case_of("merge_heads", (X,), student=lambda X: merge_heads(X).T)
    assert patterns.heads_arrangement(case) == [Finding("heads.axes_order", {"shapes": " (shape (8, 3) instead of (3, 8))"})]


def test_heads_arrangement_silent_when_the_numbers_are_different():
    X = normal((3, 8), "X")
    case = case_of("split_heads", (X, 2), student=lambda X, h: 2 * split_heads(X, h))
    assert patterns.heads_arrangement(case) == []
    assert patterns.heads_arrangement(case_of("softmax", (X,), student=lambda x, axis=-1: softmax_along(x).T)) == []


# ---------------------------------------------------------------------------------------
# patterns.variance_as_std and patterns.variance_of_other_draws


def variance_student(statistic=np.var, draws=None):
    def student(d_k, n_samples, rng):
        q, k = (draws or (lambda rng: (rng.standard_normal((n_samples, d_k)), rng.standard_normal((n_samples, d_k)))))(rng)
        dots = np.sum(q * k, axis=-1)
        return float(statistic(dots)), float(statistic(dots / math.sqrt(d_k)))

    return student


def test_variance_as_std_names_standard_deviations():
    case = case_of("dot_product_variance", (16, 2000, RngSeed(5)), student=variance_student(np.std))
    assert patterns.variance_as_std(case) == [Finding("variance.std_not_var", {})]


def test_variance_as_std_silent_on_variances_of_other_draws():
    other_draws = variance_student(draws=lambda rng: tuple(rng.standard_normal((2, 16, 2000)).transpose(0, 2, 1)))
    assert patterns.variance_as_std(case_of("dot_product_variance", (16, 2000, RngSeed(5)), student=other_draws)) == []


def test_variance_of_other_draws_names_draws_of_another_spread_whose_scaling_is_right():
    def halved(d_k, n_samples, rng):  # q drawn with standard deviation 1/2: Var(q.k) = d_k / 4, not d_k
        dots = np.sum(0.5 * rng.standard_normal((n_samples, d_k)) * rng.standard_normal((n_samples, d_k)), axis=-1)
        return float(np.var(dots)), float(np.var(dots / math.sqrt(d_k)))

    case = case_of("dot_product_variance", (16, 1000, RngSeed(3)), student=halved, recall=True)
    found = patterns.variance_of_other_draws(case)
    assert [f.id for f in found] == ["variance.raw_variance_off"] and 0.2 < float(found[0].facts["ratio"]) < 0.3
    from autograder.diagnose.confirm import redraws  # noqa: PLC0415
    assert all(c.arguments["n_samples"] == 1000 for c in redraws(case))  # a re-draw keeps the number of samples


def test_variance_of_other_draws_names_right_sized_variances_of_other_numbers():
    other_draws = variance_student(draws=lambda rng: (rng.standard_normal((16, 2000)).T, rng.standard_normal((16, 2000)).T))
    case = case_of("dot_product_variance", (16, 2000, RngSeed(5)), student=other_draws, recall=True)
    assert patterns.variance_of_other_draws(case) == [Finding("variance.draw_order", {})]  # no estimator fits them


def test_variance_of_other_draws_silent_on_wrongly_sized_variances():
    def raw_twice(d_k, n_samples, rng):
        dots = np.sum(rng.standard_normal((n_samples, d_k)) * rng.standard_normal((n_samples, d_k)), axis=-1)
        return float(np.var(dots)), float(np.var(dots))

    assert patterns.variance_of_other_draws(case_of("dot_product_variance", (16, 2000, RngSeed(5)), student=raw_twice)) == []
    assert patterns.variance_of_other_draws(case_of("dot_product_variance", (16, 2000, RngSeed(5)),
                                                    student=variance_student(np.std))) == []


# ---------------------------------------------------------------------------------------
# calls.own_generator


def test_own_generator_names_a_function_drawing_from_its_own_generator():
    seeds = iter(range(100))

    def student(d_k, n_samples, rng):
        own_rng = np.random.default_rng(next(seeds))  # ignores the rng it is given
        return variance_student()(d_k, n_samples, own_rng)

    case = case_of("dot_product_variance", (16, 500, RngSeed(5)), student=student, recall=True)
    assert calls.own_generator(case) == [Finding("variance.own_generator", {})]


def test_own_generator_silent_for_a_deterministic_wrong_function_or_without_rng():
    case = case_of("dot_product_variance", (16, 500, RngSeed(5)), student=variance_student(np.std), recall=True)
    assert calls.own_generator(case) == []
    assert calls.own_generator(case_of("softmax", (normal((2, 3), "x"),), student=lambda x, axis=-1: x, recall=True)) == []


def test_own_generator_silent_where_the_right_answer_does_not_change_with_the_seed():
    one_key = case_of("softmax_gradient_norm", (5, 1, 50, RngSeed(2)), student=lambda *a, **k: 1.0, recall=True)
    assert calls.own_generator(one_key) == []  # one key: J = 0 on every seed, so a constant tells nothing


def test_own_generator_silent_on_variances_of_zero_that_no_seed_changes():
    def summed_over_the_samples(d_k, n_samples, rng):  # d_k = 1: one dot product left, of variance 0 on every seed
        q, k = rng.standard_normal((n_samples, d_k)), rng.standard_normal((n_samples, d_k))
        dots = np.sum(q * k, axis=0)
        return float(np.var(dots)), float(np.var(dots / np.sqrt(d_k)))

    assert calls.own_generator(case_of("dot_product_variance", (1, 500, RngSeed(5)), student=summed_over_the_samples,
                                       recall=True)) == []


# ---------------------------------------------------------------------------------------
# calls.mask_needs_full_shape


def test_mask_needs_full_shape_names_attention_indexing_with_the_mask():
    def student(Q, K, V, mask=None):
        scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
        scores[~mask] = -np.inf  # boolean indexing: needs the mask in the scores' own shape
        A = softmax_along(scores)
        return A @ V, A

    case = case_of(SDPA, qkv((BATCH,)), {"mask": MASK}, student=student, recall=True)
    assert isinstance(case.student, Raised)
    assert calls.mask_needs_full_shape(case) == [Finding("attention.mask_not_broadcast", {})]


def test_mask_needs_full_shape_names_a_context_vector_needing_a_batched_mask():
    def student(scores, H, mask=None):
        if mask.shape != scores.shape:
            raise ValueError("mask and scores differ")
        return context(scores, H, mask)

    case = case_of(CONTEXT, context_args(), {"mask": PADDING[1]}, student=student, recall=True)
    assert calls.mask_needs_full_shape(case) == [Finding("context.mask_not_broadcast", {})]


def test_mask_needs_full_shape_names_multi_head_attention_needing_a_mask_without_head_axis():
    def student(*args, mask=None):
        if mask.shape != (BATCH, N_Q, N_KV):
            raise ValueError("mask must be (B, n_q, n_kv)")
        return mha(*args, mask=mask)

    mask = MASK[:N_Q, :N_KV]
    case = case_of(MHA, mha_args(), {"mask": mask}, student=student, recall=True)
    assert calls.mask_needs_full_shape(case) == [Finding("mha.mask_not_broadcast", {})]


def test_mask_needs_full_shape_silent_for_a_full_mask_or_an_ignored_one():
    full = np.broadcast_to(MASK, (BATCH, L_Q, L_K)).copy()
    ignoring = lambda Q, K, V, mask=None: attention(Q, K, V)  # noqa: E731
    assert calls.mask_needs_full_shape(case_of(SDPA, qkv((BATCH,)), {"mask": full}, student=ignoring, recall=True)) == []
    assert calls.mask_needs_full_shape(case_of(SDPA, qkv((BATCH,)), {"mask": MASK}, student=ignoring, recall=True)) == []
    assert calls.mask_needs_full_shape(case_of(SDPA, qkv(), student=ignoring, recall=True)) == []


# ---------------------------------------------------------------------------------------
# calls.right_on_the_last_axis_only


def keepdims_by_hand(x, axis=-1):
    """Imitates keepdims with [..., None]: right on the last axis only."""
    e = np.exp(x - np.max(x, axis=axis)[..., None])
    return e / np.sum(e, axis=axis)[..., None]


def test_right_on_the_last_axis_only_names_the_axis_a_softmax_without_keepdims_fails_on():
    x = normal((4, 4), "x")
    case = case_of("softmax", (x,), {"axis": 0}, student=keepdims_by_hand, recall=True)
    assert calls.right_on_the_last_axis_only(case) == [Finding("call.last_axis_only", {"axis": "0"})]


def test_right_on_the_last_axis_only_names_rows_made_by_a_reshape_that_never_moved_the_axis():
    def rows_by_reshape(A, dA, axis=-1):  # right along the last axis only: reshape(-1, n) mixes other slices
        a, g = (np.asarray(v).reshape(-1, np.shape(A)[axis]) for v in (A, dA))
        return (a * (g - np.sum(g * a, axis=-1, keepdims=True))).reshape(np.shape(A))

    A = softmax_along(normal((3, 5), "rows"), 0)
    case = case_of("softmax_backward", (A, normal((3, 5), "rows-dA")), {"axis": 0}, student=rows_by_reshape, recall=True)
    assert calls.right_on_the_last_axis_only(case) == [Finding("call.last_axis_only", {"axis": "0"})]


def test_right_on_the_last_axis_only_silent_on_the_last_axis_and_when_wrong_there_too():
    x = normal((4, 4), "x")
    last = case_of("softmax", (x,), {"axis": -1}, student=lambda x, axis=-1: softmax_along(2 * x, axis), recall=True)
    assert calls.right_on_the_last_axis_only(last) == []
    doubled = case_of("softmax", (x,), {"axis": 0}, student=lambda x, axis=-1: softmax_along(2 * x, axis), recall=True)
    assert calls.right_on_the_last_axis_only(doubled) == []
    assert calls.right_on_the_last_axis_only(case_of(SDPA, qkv(), student=unscaled, recall=True)) == []  # not softmax


# ---------------------------------------------------------------------------------------
# calls.batch_only


def attention_transposing_with(transpose):
    """Attention whose keys are transposed by ``transpose`` (K.T, K.transpose(0, 2, 1)) instead of the last two axes."""

    def student(Q, K, V, mask=None):
        A = softmax_along(Q @ transpose(K) / math.sqrt(Q.shape[-1]))
        return A @ V, A

    return student


def test_batch_only_names_attention_that_transposes_every_axis():
    case = case_of(SDPA, qkv((BATCH, 3)), student=attention_transposing_with(lambda K: K.T), recall=True)
    assert isinstance(case.student, Raised)
    assert calls.batch_only(case) == [Finding("attention.no_batch_support", {})]


def test_batch_only_names_a_dot_score_that_contracts_the_batch_with_np_dot():
    s, H = normal((BATCH, 3), "s"), normal((BATCH, L_K, 3), "H")
    case = case_of("dot_score", (s, H), student=lambda s, H: np.dot(H, s), recall=True)
    assert calls.batch_only(case) == [Finding("luong.no_batch_support", {})]


def test_batch_only_names_softmax_without_keepdims_on_a_batch_of_rows():
    x = normal((3, 4), "x")

    def student(x, axis=-1):
        e = np.exp(x - np.max(x, axis=axis))
        return e / np.sum(e, axis=axis)

    case = case_of("softmax", (x,), student=student, recall=True)
    assert calls.batch_only(case) == [Finding("softmax.no_keepdims", {})]


def test_batch_only_names_softmax_without_keepdims_when_the_last_axis_is_given_as_a_positive_number():
    x = normal((3, 4), "x")

    def student(x, axis=-1):
        e = np.exp(x - np.max(x, axis=axis))
        return e / np.sum(e, axis=axis)

    case = case_of("softmax", (x,), {"axis": 1}, student=student, recall=True)
    assert calls.batch_only(case) == [Finding("softmax.no_keepdims", {})]


def test_batch_only_names_a_function_right_with_exactly_one_batch_axis():
    student = attention_transposing_with(lambda K: K.transpose(0, 2, 1))  # fails on single examples
    case = case_of(SDPA, qkv((BATCH, 3)), student=student, recall=True)
    assert calls.batch_only(case) == [Finding("call.one_batch_axis_only", {"count": "2"})]  # not "right for one example"


def test_batch_only_silent_when_single_examples_are_wrong_too():
    case = case_of(SDPA, qkv((BATCH,)), student=unscaled, recall=True)
    assert calls.batch_only(case) == []


def test_batch_only_silent_without_recall_or_for_softmax_along_another_axis():
    s, H = normal((BATCH, 3), "s"), normal((BATCH, L_K, 3), "H")
    assert calls.batch_only(case_of("dot_score", (s, H), student=lambda s, H: np.dot(H, s))) == []
    x = normal((3, 4), "x")
    axis_0 = case_of("softmax", (x,), {"axis": 0}, student=lambda x, axis=-1: softmax_along(x), recall=True)
    assert calls.batch_only(axis_0) == []


def test_batch_only_spends_at_most_the_call_budget():
    seen = []

    def student(Q, K, V, mask=None):
        seen.append(1)
        return attention(Q, K, V, divide_by=1.0)

    case = case_of(SDPA, qkv((BATCH, 3)), student=student, recall=True)
    calls.batch_only(case)
    assert len(seen) - 1 <= MAX_STUDENT_CALLS  # the first call made the case


# ---------------------------------------------------------------------------------------
# softmax.overflow


def test_overflow_names_attention_that_overflows_on_large_scores():
    def student(Q, K, V, mask=None):  # neither scaled nor shifted
        e = np.exp(Q @ np.swapaxes(K, -1, -2))
        A = e / e.sum(axis=-1, keepdims=True)
        return A @ V, A

    Q, K, V = qkv()
    case = case_of(SDPA, (40 * Q, 40 * K, V), student=student)
    assert softmax.overflow(case) == [Finding("attention.no_max_shift", {})]


def test_overflow_names_softmax_on_huge_scores():
    x = 1e4 + normal((3, 5), "x")
    case = case_of("softmax", (x,), student=lambda x, axis=-1: 2 * np.exp(x) / np.sum(np.exp(x), axis=axis, keepdims=True))
    assert softmax.overflow(case) == [Finding("softmax.no_max_shift", {})]


def test_overflow_silent_on_small_scores_and_finite_weights():
    x = normal((3, 5), "x")
    small = case_of("softmax", (x,), student=lambda x, axis=-1: np.full_like(x, np.nan))
    assert softmax.overflow(small) == []
    huge = 1e4 + x
    assert softmax.overflow(case_of("softmax", (huge,), student=lambda x, axis=-1: np.full_like(x, 0.2))) == []


# ---------------------------------------------------------------------------------------
# arguments.mask_arithmetic


def test_mask_arithmetic_names_an_additive_mask_that_gives_nan():
    student = lambda Q, K, V, mask=None: attention(Q, K, V, mask, mask_with=lambda s, m: s + (1 - m) * -np.inf)  # noqa: E731
    case = case_of(SDPA, qkv(), {"mask": MASK.astype(np.float64)}, student=student)
    assert arguments.mask_arithmetic(case) == [Finding("attention.mask_nan", {})]


def test_mask_arithmetic_names_a_context_vector_with_nan_padding():
    def student(scores, H, mask=None):
        alpha = softmax_along(scores + (1 - mask) * -np.inf)  # 0 * -inf is NaN
        return np.einsum("...t,...td->...d", alpha, H), alpha

    case = case_of(CONTEXT, context_args(), {"mask": PADDING}, student=student)
    assert arguments.mask_arithmetic(case) == [Finding("context.mask_nan", {})]


def test_mask_arithmetic_names_a_mean_shift_that_turns_masked_rows_into_nan_as_such():
    def mean_shift(scores, H, mask=None):
        scores = scores if mask is None else np.where(mask, scores, -np.inf)
        e = np.exp(scores - np.mean(scores, axis=-1, keepdims=True))  # -inf - (-inf) = NaN in a masked row
        alpha = e / np.sum(e, axis=-1, keepdims=True)
        return np.einsum("...t,...td->...d", alpha, H), alpha

    case = case_of(CONTEXT, context_args(), {"mask": PADDING}, student=mean_shift, recall=True)
    assert arguments.mask_arithmetic(case) == [Finding("context.inf_scores_nan", {})]


def test_mask_arithmetic_silent_when_the_scores_themselves_give_nan_without_the_mask():
    scores, H = context_args()
    scores[:, -1] = np.inf  # only the padding mask keeps these rows finite
    student = lambda s, H, mask=None: context(s, H)  # noqa: E731  (ignores the mask: inf - inf is NaN)
    case = case_of(CONTEXT, (scores, H), {"mask": PADDING}, student=student)
    assert np.isnan(case.student.arrays[1]).all()
    assert arguments.mask_arithmetic(case) == []


def test_mask_arithmetic_silent_without_a_mask_or_without_nan():
    nan = lambda Q, K, V, mask=None: (np.full((L_Q, D_V), np.nan), np.full((L_Q, L_K), np.nan))  # noqa: E731
    assert arguments.mask_arithmetic(case_of(SDPA, qkv(), student=nan)) == []
    ignored = case_of(SDPA, qkv(), {"mask": MASK}, student=lambda Q, K, V, mask=None: attention(Q, K, V))
    assert arguments.mask_arithmetic(ignored) == []


# ---------------------------------------------------------------------------------------
# outputs.proportional_weights


def test_proportional_weights_names_attention_weights_never_divided_by_their_sum():
    case = case_of(SDPA, qkv(), {"mask": MASK},
                   student=lambda Q, K, V, mask=None: attention(Q, K, V, mask, weights_of=softmax.unnormalised))
    assert outputs.proportional_weights(case) == [Finding("attention.not_normalized", {})]


def test_proportional_weights_names_softmax_divided_by_the_sum_of_everything():
    x = normal((3, 5), "x")
    case = case_of("softmax", (x,), student=lambda x, axis=-1: np.exp(x) / np.exp(x).sum())
    assert outputs.proportional_weights(case) == [Finding("softmax.global_normalization", {})]


def test_proportional_weights_calls_a_global_sum_in_attention_not_normalised():
    def student(Q, K, V, mask=None):
        e = np.exp(Q @ K.T / math.sqrt(Q.shape[-1]))
        A = e / e.sum()
        return A @ V, A

    assert outputs.proportional_weights(case_of(SDPA, qkv(), student=student)) == [Finding("attention.not_normalized", {})]


def test_proportional_weights_silent_on_right_or_reordered_weights():
    assert outputs.proportional_weights(right(SDPA, qkv())) == []
    x = normal((3, 5), "x")
    reordered = case_of("softmax", (x,), student=lambda x, axis=-1: softmax_along(x)[:, ::-1])
    assert outputs.proportional_weights(reordered) == []


# ---------------------------------------------------------------------------------------
# Every probe is covered here


@pytest.mark.parametrize("probe", PROBES + FALLBACK_PROBES, ids=lambda p: p.__name__)
def test_every_probe_has_a_positive_and_a_negative_test(probe):
    from tests.autograder.diagnose import test_backward, test_invariance, test_raises, test_readout, test_relations

    modules = (test_backward, test_invariance, test_raises, test_readout, test_relations)
    names = [name for name in [*globals(), *(n for m in modules for n in vars(m))] if name.startswith(f"test_{probe.__name__}_")]
    assert any("_names_" in name for name in names), probe.__name__
    assert any("_silent_" in name for name in names), probe.__name__


def _integer_dot_case(student):
    s, H = np.array([[1, 2], [0, 1]]), np.array([[[1, 0], [2, 1], [0, 3]], [[1, 1], [0, 2], [1, 0]]])
    return Case("dot_score", (s, H), {}, TOL, split(attn_reference.dot_score(s, H)), split(student(s, H)))


def test_not_float_names_integer_scores_for_integer_input():
    case = _integer_dot_case(lambda s, H: np.einsum("bd,btd->bt", s, H))  # a dot score that keeps integers
    assert outputs.not_float(case) == [Finding("call.not_float", {"dtype": "int64"})]


def test_not_float_silent_on_real_scores_even_wrong_ones():
    assert outputs.not_float(_integer_dot_case(lambda s, H: np.einsum("bd,btd->bt", s, H) * 2.0)) == []


def _max_before_mask(scores, H, mask=None):
    shifted = scores - np.max(scores, axis=-1, keepdims=True)  # the padded scores take part in the maximum
    e = np.exp(shifted) * (np.ones_like(scores) if mask is None else mask)
    alpha = e / np.sum(e, axis=-1, keepdims=True)
    return np.einsum("...t,...td->...d", alpha, H), alpha


def test_masked_scores_matter_names_a_maximum_taken_before_the_mask():
    scores, H = context_args()
    scores = np.where(PADDING, scores, 1e3)  # padded scores far above the rest: every allowed exponent underflows
    case = case_of(CONTEXT, (scores, H), {"mask": PADDING}, student=_max_before_mask, recall=True)
    assert arguments.masked_scores_matter(case) == [Finding("context.masked_scores_used", {})]


def test_masked_scores_matter_silent_on_an_ignored_mask_and_on_ordinary_scores():
    scores, H = context_args()
    huge = np.where(PADDING, scores, 1e3)
    ignored = case_of(CONTEXT, (huge, H), {"mask": PADDING}, student=lambda s, H, mask=None: context(s, H), recall=True)
    assert arguments.masked_scores_matter(ignored) == []
    wrong_elsewhere = case_of(CONTEXT, (scores, H), {"mask": PADDING}, recall=True,
                              student=lambda s, H, mask=None: tuple(2 * p for p in context(s, H, mask)))
    assert arguments.masked_scores_matter(wrong_elsewhere) == []


def _with_minus_inf():
    x = normal((3, 5), "x", 2.0)
    x[0, 1] = x[2, 3] = -np.inf
    return x


def test_inf_entries_nan_names_a_softmax_shifted_by_its_minimum():
    def shifted_by_min(x, axis=-1):
        with np.errstate(invalid="ignore"):
            e = np.exp(x - np.min(x, axis=axis, keepdims=True))
        return e / np.sum(e, axis=axis, keepdims=True)

    case = case_of("softmax", (_with_minus_inf(),), student=shifted_by_min, recall=True)
    assert softmax.inf_entries_nan(case) == [Finding("softmax.inf_nan", {})]


def test_inf_entries_nan_silent_on_nan_from_other_causes_and_without_minus_inf():
    everywhere = lambda x, axis=-1: np.full(np.shape(x), np.nan)  # noqa: E731  (NaN whatever the input)
    assert softmax.inf_entries_nan(case_of("softmax", (_with_minus_inf(),), student=everywhere, recall=True)) == []
    plain = normal((3, 5), "x")
    assert softmax.inf_entries_nan(case_of("softmax", (plain,), student=everywhere, recall=True)) == []
