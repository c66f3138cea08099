"""Probes of results that are simple functions of the expected one (reversed along an axis, shifted by their maximum,
the scores where the weights belong, a shape with a size-1 axis too many or too few), of a backward pass without its
softmax step, heads split by their size and vectors drawn another way: each names its bug on a wrong implementation
written here, and is silent on the right one and on an unrelated mistake."""

from __future__ import annotations

import math

import numpy as np

from attn_reference import scaled_dot_product_attention_backward as reference_backward
from autograder.diagnose.diagnosis import observed_shape
from autograder.diagnose.probes import PROBES, backward, estimator, heads, outputs, softmax
from autograder.diagnose.probes.finding import Finding
from autograder.inputs import RngSeed
from tests.autograder.diagnose.test_probes import (SDPA, additive, additive_args, attention, case_of,
                                                   normal, qkv, right, softmax_along, split_heads)

BACKWARD = "scaled_dot_product_attention_backward"


# ------------------------------------------------------------------ a part reversed along an axis


def test_reversed_part_names_a_causal_mask_turned_upside_down():
    upside_down = lambda n: np.flipud(np.triu(np.ones((n, n), dtype=bool)))  # noqa: E731
    found = outputs.reversed_part(case_of("causal_mask", (5,), student=upside_down))
    assert [f.id for f in found] == ["call.reversed_axis"] and found[0].facts["axis"] in ("-2", "-1")
    assert outputs.reversed_part in PROBES


def test_reversed_part_silent_on_the_right_mask_and_on_another_pattern():
    assert outputs.reversed_part(right("causal_mask", (5,))) == []
    shifted = lambda n: np.tril(np.ones((n, n), dtype=bool), k=1)  # noqa: E731
    assert outputs.reversed_part(case_of("causal_mask", (5,), student=shifted)) == []


# ------------------------------------------------------------------ a part shifted by its maximum


def test_shifted_by_maximum_names_scores_that_subtract_their_largest():
    shifted = lambda *args: (lambda e: e - e.max(axis=-1, keepdims=True))(additive(*args))  # noqa: E731
    assert outputs.shifted_by_maximum(case_of("additive_score", additive_args(), student=shifted)) == [
        Finding("call.shifted_by_maximum", {"part": "the scores", "axis": "-1"})]


def test_shifted_by_maximum_silent_on_right_scores_and_on_a_shift_by_the_mean():
    assert outputs.shifted_by_maximum(right("additive_score", additive_args())) == []
    centred = lambda *args: (lambda e: e - e.mean(axis=-1, keepdims=True))(additive(*args))  # noqa: E731
    assert outputs.shifted_by_maximum(case_of("additive_score", additive_args(), student=centred)) == []


# ------------------------------------------------------------------ the scores returned as the weights


def _scores_as_weights(Q, K, V, mask=None):
    Z, _ = attention(Q, K, V, mask)
    return Z, Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])


def test_scores_for_weights_names_attention_that_returns_its_scaled_scores_as_a():
    assert softmax.scores_for_weights(case_of(SDPA, qkv(), student=_scores_as_weights)) == [
        Finding("call.scores_for_weights", {"part": "A"})]
    assert softmax.scores_for_weights in PROBES


def test_scores_for_weights_silent_on_right_weights_and_on_unnormalised_ones():
    assert softmax.scores_for_weights(right(SDPA, qkv())) == []
    unnormalised = lambda Q, K, V, mask=None: attention(Q, K, V, mask, weights_of=np.exp)  # noqa: E731
    assert softmax.scores_for_weights(case_of(SDPA, qkv(), student=unnormalised)) == []


# ------------------------------------------------------------------ a size-1 axis too many or too few


def test_observed_shape_names_an_extra_and_a_missing_axis_of_size_one():
    mask = lambda n: np.tril(np.ones((1, n, n), dtype=bool))  # noqa: E731
    case = case_of("causal_mask", (4,), student=mask)
    assert [(d.id, "(1, 4, 4)" in str(d.hint)) for d in observed_shape(case)] == [("call.extra_unit_axis", True)]
    X = normal((3, 6, 12), "one-head")
    dropped = case_of("split_heads", (X, 1), student=lambda X, h: X)
    assert [d.id for d in observed_shape(dropped)] == ["call.missing_unit_axis"]
    same_shape = case_of("causal_mask", (4,), result=np.ones((4, 4), dtype=bool))  # same shape: no axis to name
    assert not {d.id for d in observed_shape(same_shape)} & {"call.extra_unit_axis", "call.missing_unit_axis"}


# ------------------------------------------------------------------ a backward pass without its softmax step


def _dK_from_dA(Q, K, V, A, dZ, mask=None):
    dQ, _, dV = reference_backward(Q, K, V, A, dZ, mask)
    dA = dZ @ np.swapaxes(V, -1, -2)
    return dQ, np.swapaxes(dA, -1, -2) @ Q / math.sqrt(Q.shape[-1]), dV


def _backward_args():
    Q, K, V = qkv()
    _, A = attention(Q, K, V)
    return Q, K, V, A, normal((Q.shape[0], V.shape[-1]), "dZ")


def test_attention_backward_behaviour_names_dK_computed_from_dA():
    found = backward.attention_backward_behaviour(case_of(BACKWARD, _backward_args(), student=_dK_from_dA))
    assert found == [Finding("call.step_skipped", {"gradients": "dK", "step": "softmax_backward", "argument": "dA"})]


def test_attention_backward_behaviour_silent_on_the_right_gradients_and_on_dK_off_by_a_sign():
    assert backward.attention_backward_behaviour(right(BACKWARD, _backward_args())) == []
    negated = lambda *args: (lambda g: (g[0], -g[1], g[2]))(reference_backward(*args))  # noqa: E731
    found = backward.attention_backward_behaviour(case_of(BACKWARD, _backward_args(), student=negated))
    assert "call.step_skipped" not in {f.id for f in found}


# ------------------------------------------------------------------ heads split by their size


def test_split_by_head_size_names_split_heads_that_reads_num_heads_as_the_head_size():
    X = normal((2, 5, 12), "by-size")
    by_size = lambda X, h: np.swapaxes(X.reshape(*X.shape[:-1], -1, h), -2, -3)  # noqa: E731
    assert heads.split_by_head_size(case_of("split_heads", (X, 3), student=by_size)) == [
        Finding("heads.split_by_head_size", {"got": "4", "num_heads": "3"})]


def test_split_by_head_size_silent_on_right_heads_and_on_a_transposed_head_block():
    X = normal((2, 5, 12), "by-size")
    assert heads.split_by_head_size(right("split_heads", (X, 3))) == []
    flipped = lambda X, h: np.swapaxes(split_heads(X, h), -1, -2)  # noqa: E731
    assert heads.split_by_head_size(case_of("split_heads", (X, 3), student=flipped)) == []


# ------------------------------------------------------------------ vectors drawn another way


def _variance_of(draw):
    def experiment(d_k, n_samples, rng):
        q, k = draw(rng, n_samples, d_k)
        x = np.sum(q * k, axis=-1)
        return float(np.var(x)), float(np.var(x / math.sqrt(d_k)))
    return experiment


def test_other_draws_names_one_draw_used_for_both_vectors_and_uniform_draws():
    same = case_of("dot_product_variance", (6, 300, RngSeed(5)), student=_variance_of(estimator._same_vector))
    assert [(f.id, "q = k" in str(f.facts["draws"])) for f in estimator.other_draws(same)] == [("variance.other_draws", True)]
    uniform = _variance_of(lambda rng, n, d: (rng.random((n, d)), rng.random((n, d))))
    found = estimator.other_draws(case_of("dot_product_variance", (6, 300, RngSeed(5)), student=uniform))
    assert "rng.random" in str(found[0].facts["draws"])


def test_other_draws_silent_on_the_documented_draws_and_on_another_seed():
    documented = _variance_of(lambda rng, n, d: (rng.standard_normal((n, d)), rng.standard_normal((n, d))))
    assert estimator.other_draws(case_of("dot_product_variance", (6, 300, RngSeed(5)), student=documented)) == []
    reseeded = lambda d_k, n, rng: _variance_of(estimator._same_vector)(d_k, n, np.random.default_rng(99))  # noqa: E731
    assert estimator.other_draws(case_of("dot_product_variance", (6, 300, RngSeed(5)), student=reseeded)) == []


# ------------------------------------------------------------------ a square weight skipped


def _general(s, H, W_a):
    return np.einsum("...i,ij,...tj->...t", s, W_a, H)


def test_weight_probes_names_a_general_score_that_skips_a_square_weight():
    from autograder.diagnose.probes import arguments  # noqa: PLC0415

    s, H, W = normal((3, 5), "square-s"), normal((3, 4, 5), "square-H"), normal((5, 5), "square-W")
    skipping = lambda s, H, W_a: _general(s, H, np.eye(5) if W_a.shape[0] == W_a.shape[1] else W_a)  # noqa: E731
    found = arguments.weight_probes(case_of("general_score", (s, H, W), student=skipping))
    assert Finding("luong.missing_projection", {"weight": "W_a"}) in found
    assert arguments.weight_probes(right("general_score", (s, H, W))) == []


# ------------------------------------------------------------------ off by small amounts only


def test_relation_names_a_result_rounded_to_four_decimals_as_small_differences():
    from autograder.diagnose.relate import relation  # noqa: PLC0415

    x = normal((3, 7), "rounded")
    said = relation(case_of("softmax", (x,), student=lambda x, axis=-1: np.round(softmax_along(x), 4)))
    assert "small amounts only" in str(said) and "constant" not in str(said)


def test_relation_of_a_doubled_result_is_no_small_difference():
    from autograder.diagnose.relate import relation  # noqa: PLC0415

    x = normal((3, 7), "doubled")
    said = relation(case_of("softmax", (x,), student=lambda x, axis=-1: 2 * softmax_along(x)))
    assert "small amounts" not in str(said) and "2" in str(said)
