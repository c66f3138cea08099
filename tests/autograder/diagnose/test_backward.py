"""Backward passes diagnosed by what the student's gradient does (probes/backward.py)."""

from __future__ import annotations

import math

import numpy as np

from attn_reference import scaled_dot_product_attention_backward as reference_backward
from attn_reference import softmax_gradient_norm as reference_norm
from autograder.diagnose.probes import backward
from autograder.diagnose.probes.finding import Finding
from autograder.inputs import RngSeed
from tests.autograder.diagnose.test_diagnosis import case_of, normal, softmax_along

SOFTMAX_BACKWARD = "softmax_backward"
BACKWARD = "scaled_dot_product_attention_backward"


def weights_and_gradient(shape=(3, 5), seed=0):
    return softmax_along(normal(shape, seed, 2.0)), normal(shape, seed + 1)


def sb_case(student, axis=-1):
    A, dA = weights_and_gradient()
    return case_of(SOFTMAX_BACKWARD, (A, dA, axis), student=student)


def test_softmax_backward_behaviour_names_a_diagonal_only_jacobian():
    assert backward.softmax_backward_behaviour(sb_case(lambda A, dA, axis=-1: A * (1 - A) * dA)) == \
        [Finding("softmax_backward.diagonal_only", {})]


def test_softmax_backward_behaviour_names_a_mean_for_the_sum():
    def mean(A, dA, axis=-1):
        return A * (dA - np.mean(dA * A, axis=axis, keepdims=True))

    assert backward.softmax_backward_behaviour(sb_case(mean)) == [Finding("softmax_backward.mean_not_sum", {})]


def test_softmax_backward_behaviour_names_a_sum_over_the_whole_array():
    def everything(A, dA, axis=-1):
        return A * (dA - np.sum(dA * A))

    assert backward.softmax_backward_behaviour(sb_case(everything)) == [Finding("softmax_backward.sum_over_all", {})]


def test_softmax_backward_behaviour_names_another_reduction_in_the_projection_term():
    def weights_left_out(A, dA, axis=-1):
        return A * (dA - np.sum(dA, axis=axis, keepdims=True))

    assert backward.softmax_backward_behaviour(sb_case(weights_left_out)) == [
        Finding("softmax_backward.wrong_projection", {"term": "sum(dA)"})]
    along_rows = sb_case(lambda A, dA, axis=-1: A * (dA - np.sum(dA, axis=0, keepdims=True)))
    assert backward.softmax_backward_behaviour(along_rows) == []  # a sum along another axis: no term of this axis


def test_softmax_backward_behaviour_silent_on_an_unrelated_error():
    def right(A, dA, axis=-1):
        return A * (dA - np.sum(dA * A, axis=axis, keepdims=True))

    assert backward.softmax_backward_behaviour(sb_case(lambda A, dA, axis=-1: right(A, dA) + 0.1 * dA ** 2)) == []


def backward_inputs():
    Q, K, V = normal((2, 4, 5), 1), normal((2, 6, 5), 2), normal((2, 6, 3), 3)
    A = softmax_along(Q @ np.swapaxes(K, -1, -2) / math.sqrt(5))
    return Q, K, V, A, normal((2, 4, 3), 4)


def test_attention_backward_behaviour_names_a_gradient_divided_by_sqrt_dk_twice():
    def twice(Q, K, V, A, dZ, mask=None):
        dQ, dK, dV = reference_backward(Q, K, V, A, dZ, mask)
        return dQ / math.sqrt(Q.shape[-1]), dK, dV

    found = backward.attention_backward_behaviour(case_of(BACKWARD, backward_inputs(), student=twice))
    assert found == [Finding("attention_backward.scaled_twice", {"gradients": "dQ"})]


def test_attention_backward_behaviour_silent_on_a_factor_that_only_looks_like_sqrt_dk():
    def halved(Q, K, V, A, dZ, mask=None):  # 1/2 is 1/sqrt(d_k) only for d_k = 4; d_k is 5 here
        dQ, dK, dV = reference_backward(Q, K, V, A, dZ, mask)
        return dQ / 2, dK, dV

    assert backward.attention_backward_behaviour(case_of(BACKWARD, backward_inputs(), student=halved)) == []


def test_attention_backward_behaviour_names_the_scale_taken_from_another_size():
    def from_dz(Q, K, V, A, dZ, mask=None):  # d_k = dZ.shape[-1], which is d_v = 3
        dQ, dK, dV = reference_backward(Q, K, V, A, dZ, mask)
        factor = math.sqrt(Q.shape[-1] / dZ.shape[-1])
        return dQ * factor, dK * factor, dV

    found = backward.attention_backward_behaviour(case_of(BACKWARD, backward_inputs(), student=from_dz))
    assert found == [Finding("attention_backward.scale_by_wrong_dim", {"gradients": "dQ and dK", "dimension": "d_v"})]


def test_attention_backward_behaviour_silent_on_a_scale_that_fits_no_size_or_only_one_gradient():
    def off(Q, K, V, A, dZ, mask=None):
        dQ, dK, dV = reference_backward(Q, K, V, A, dZ, mask)
        return dQ * 1.3, dK * 1.3, dV

    assert backward.attention_backward_behaviour(case_of(BACKWARD, backward_inputs(), student=off)) == []

    def one(Q, K, V, A, dZ, mask=None):  # dQ scaled by sqrt(d_k / d_v), dK wrong otherwise
        dQ, dK, dV = reference_backward(Q, K, V, A, dZ, mask)
        return dQ * math.sqrt(5 / 3), dK + 1.0, dV

    assert backward.attention_backward_behaviour(case_of(BACKWARD, backward_inputs(), student=one)) == []


def test_attention_backward_behaviour_names_a_transposed_gradient():
    def transposed(Q, K, V, A, dZ, mask=None):
        dQ, dK, dV = reference_backward(Q, K, V, A, dZ, mask)
        return dQ, np.swapaxes(dK, -1, -2), dV

    found = backward.attention_backward_behaviour(case_of(BACKWARD, backward_inputs(), student=transposed))
    assert found == [Finding("attention_backward.gradient_transposed", {"gradient": "dK"})]


def test_experiment_aggregation_names_an_experiment_right_on_one_sample_silent_on_a_factor():
    def root_mean_square(d_k, n_keys, n_samples, rng, scaled=True):
        q = rng.standard_normal((n_samples, d_k))
        K = rng.standard_normal((n_samples, n_keys, d_k))
        a = softmax_along((K @ q[:, :, None])[:, :, 0] / (math.sqrt(d_k) if scaled else 1.0))
        J = a[:, :, None] * np.eye(n_keys) - a[:, :, None] * a[:, None, :]
        return float(np.sqrt(np.mean(np.sum(J ** 2, axis=(-2, -1)))))

    args = (8, 6, 50, RngSeed(3))
    case = case_of("softmax_gradient_norm", args, student=root_mean_square)
    assert backward.experiment_aggregation(case) == [Finding("gradient_norm.aggregation", {})]
    doubled = case_of("softmax_gradient_norm", args, student=lambda *a, **k: 2 * reference_norm(*a, **k))
    assert backward.experiment_aggregation(doubled) == []
