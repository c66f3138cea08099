"""Relations of a wrong result to the call's inputs, and the new failing conditions: each against a wrong
implementation that shows it and an honest control that gets none of it."""

from __future__ import annotations

import math

import numpy as np

import attn_reference
from attn_reference import scaled_dot_product_attention_backward as reference_backward
from attn_reference import softmax_backward as reference_softmax_backward
from autograder.diagnose.diagnosis import diagnose
from autograder.diagnose.localise import localisation
from autograder.diagnose.relate import relation
from autograder.inputs import RngSeed
from tests.autograder.diagnose.test_diagnosis import case_of, normal, softmax_along

BACKWARD = "scaled_dot_product_attention_backward"


def weights_and_gradient(shape=(4, 5)):
    return softmax_along(normal(shape, 1)), normal(shape, 2)


def inner(A, dA, axis=-1):
    return np.sum(A * dA, axis=axis, keepdims=True)


def backward_inputs(L_q=4, L_k=6, d_k=3, d_v=5, batch=()):
    Q, K, V = normal(batch + (L_q, d_k), 3), normal(batch + (L_k, d_k), 4), normal(batch + (L_k, d_v), 5)
    A = softmax_along(Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_k))
    return Q, K, V, A, normal(np.broadcast_shapes(batch + (L_q, d_v), A.shape[:-1] + (d_v,)), 6)


def test_a_gradient_computed_with_two_arguments_swapped_is_said_so():
    def roles_swapped(A, dA, axis=-1):
        return dA * (A - inner(A, dA, axis))

    said = relation(case_of("softmax_backward", weights_and_gradient(), student=roles_swapped))
    assert said == "it is what the expected function gives with A and dA swapped"


def test_a_step_called_with_its_arguments_swapped_is_said_so_and_the_right_function_gets_nothing():
    def step_swapped(Q, K, V, A, dZ, mask=None):
        return reference_backward(Q, K, V, A, dZ, mask, softmax_backward=lambda W, dW, axis=-1: reference_softmax_backward(dW, W, axis))

    inputs = backward_inputs()
    said = relation(case_of(BACKWARD, inputs, student=step_swapped))
    assert said == "it is what the expected function gives when its step softmax_backward gets its first two arguments swapped"
    assert relation(case_of(BACKWARD, inputs, student=reference_backward)) is None
    assert diagnose(case_of(BACKWARD, inputs, student=reference_backward)) == ()


def test_a_factor_that_is_an_argument_is_named_by_that_argument():
    def without_A(A, dA, axis=-1):
        return dA - inner(A, dA, axis)

    said = relation(case_of("softmax_backward", weights_and_gradient(), student=without_A))
    assert said == "dS: it is the expected one divided by A, entry by entry"
    assert relation(case_of("softmax_backward", weights_and_gradient(), student=reference_softmax_backward)) is None


def test_a_wrong_term_along_an_axis_is_said_as_an_argument_times_a_constant():
    def unweighted(A, dA, axis=-1):
        return A * (dA - np.sum(dA, axis=axis, keepdims=True))

    said = relation(case_of("softmax_backward", weights_and_gradient(), student=unweighted))
    assert said.startswith("dS: it differs from the expected one by A times a term constant along axis -1")


def test_one_wrong_gradient_among_right_ones_is_said_part_by_part():
    def dQ_from_Q(Q, K, V, A, dZ, mask=None):
        dQ, dK, dV = reference_backward(Q, K, V, A, dZ, mask)
        return dQ + normal(dQ.shape, 9), dK, dV

    said = relation(case_of(BACKWARD, backward_inputs(), student=dQ_from_Q))
    assert said == "dQ wrong; dK, dV right"


def test_an_extra_or_missing_size_one_axis_is_said_with_both_shapes():
    s, H = normal((3, 4), 1), normal((3, 7, 4), 2)

    def keeps_axis(s, H):
        return H @ s[..., :, None]

    def squeezed(s, H):
        return np.squeeze(attn_reference.dot_score(s, H))

    said = relation(case_of("dot_score", (s, H), student=keeps_axis))
    assert said == "the scores: it has shape (3, 7, 1) where (3, 7) is expected: an extra axis of size 1"
    said = relation(case_of("dot_score", (s[:1], H[:1]), student=squeezed))
    assert said.startswith("the scores: it has shape (7,) where (1, 7) is expected: an axis of size 1 is missing")


def test_an_axis_reduced_instead_of_another_is_named_by_the_sizes():
    def sums_features(scores, H, mask=None):
        c, alpha = attn_reference.attention_context(scores, H, mask)
        return np.sum(alpha[..., None] * H, axis=-1), alpha

    scores, H = normal((2, 7), 1), normal((2, 7, 5), 2)
    said = relation(case_of("attention_context", (scores, H), student=sums_features))
    assert said.startswith("c: it has shape (2, 7) where (2, 5) is expected: d_h (axis -1) has the size of T = 7")
    assert said.endswith("alpha right")
    assert relation(case_of("attention_context", (scores, H), student=attn_reference.attention_context)) is None


def test_a_function_wrong_only_without_batch_axes_is_localised_so():
    def wrong_unbatched(s, H, W_a, U_a, v_a):
        scores = attn_reference.additive_score(s, H, W_a, U_a, v_a)
        return scores if np.ndim(s) > 1 else scores[::-1]

    arguments = (normal((3,), 1), normal((6, 4), 2), normal((5, 3), 3), normal((5, 4), 4), normal((5,), 5))
    said = localisation(case_of("additive_score", arguments, student=wrong_unbatched))
    assert said == "Where it fails: right once a batch axis is added to the same inputs, wrong on inputs without batch axes."


def test_a_function_right_only_when_every_argument_is_batched_is_localised_so():
    def dK_to_Q_shape(Q, K, V, A, dZ, mask=None):
        dQ, dK, dV = reference_backward(Q, np.broadcast_to(K, Q.shape[:-2] + K.shape[-2:]), V, A, dZ, mask)
        return dQ, dK, dV

    Q, K, V, A, dZ = backward_inputs(batch=(3,))
    K, V = K[0], V[0]  # no batch axes: they broadcast against Q's
    A = softmax_along(Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1]))
    case = case_of(BACKWARD, (Q, K, V, A, dZ), student=dK_to_Q_shape)
    assert localisation(case) == "Where it fails: right once every argument is given the batch axes, wrong on this call, where some lack them."
    assert "dK: it keeps the broadcast shape (3, 6, 3)" in relation(case)


def spectral_norm(d_k, n_keys, n_samples, rng, scaled=True):
    q = rng.standard_normal((n_samples, d_k))
    K = rng.standard_normal((n_samples, n_keys, d_k))
    scores = np.einsum("sd,skd->sk", q, K) / (math.sqrt(d_k) if scaled else 1.0)
    a = softmax_along(scores)
    J = a[:, :, None] * np.eye(n_keys) - a[:, :, None] * a[:, None, :]
    return float(np.mean(np.linalg.norm(J, ord=2, axis=(1, 2))))


def test_a_count_above_which_it_fails_is_localised_at_two():
    case = case_of("softmax_gradient_norm", (8, 6, 5, RngSeed(3)), student=spectral_norm)
    said = localisation(case)
    assert "right when n_keys = 2, wrong when it is 6" in said


def test_a_function_wrong_only_with_axes_of_size_one_is_localised_so():
    def squeezed(s, H):
        return np.squeeze(attn_reference.dot_score(s, H))

    s, H = normal((1, 4), 1), normal((1, 7, 4), 2)
    said = localisation(case_of("dot_score", (s, H), student=squeezed))
    assert said == ("Where it fails: right once every axis of size 1 is made of size 2, wrong with the axes of size 1 "
                    "of s (1, 4), H (1, 7, 4).")
    assert diagnose(case_of("dot_score", (s, H), student=attn_reference.dot_score)) == ()


def test_a_term_that_is_an_argument_is_named_by_that_argument():
    def minus_dA(A, dA, axis=-1):
        return reference_softmax_backward(A, dA, axis) - dA

    said = relation(case_of("softmax_backward", weights_and_gradient(), student=minus_dA))
    assert said == "dS: it is the expected one minus dA"
    assert diagnose(case_of("softmax_backward", weights_and_gradient(), student=reference_softmax_backward)) == ()


def test_a_function_wrong_only_where_a_mask_row_allows_nothing_is_localised_so():
    def dV_before_masking(Q, K, V, A, dZ, mask=None):
        dQ, dK, _ = reference_backward(Q, K, V, A, dZ, mask)
        return dQ, dK, np.swapaxes(A, -1, -2) @ dZ

    Q, K, V, _, dZ = backward_inputs()
    mask = np.ones((4, 6), dtype=bool)
    mask[1] = False  # query 1 may attend to no key: its forward weights are NaN
    mask[2, :3] = False
    _, A = attn_reference.scaled_dot_product_attention(Q, K, V, mask)
    said = localisation(case_of(BACKWARD, (Q, K, V, A, dZ, mask), student=dV_before_masking))
    assert said == "Where it fails: right once the positions along L_q whose mask row allows nothing are left out, wrong with them."
    assert diagnose(case_of(BACKWARD, (Q, K, V, A, dZ, mask), student=reference_backward)) == ()


def test_a_function_wrong_only_on_huge_scores_is_localised_so_even_when_nothing_overflows():
    def additive_mask(Q, K, V, mask=None):  # a large finite constant instead of -inf
        scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1]) + (0.0 if mask is None else (1.0 - mask) * -1e4)
        A = softmax_along(scores)
        return A @ V, A

    Q, K, V = np.abs(normal((4, 3), 1, 30.0)), normal((6, 3), 2), normal((6, 5), 3)
    K[::2] = np.abs(K[::2]) * 3000.0  # the masked keys: scores of tens of thousands, far above the allowed ones
    mask = np.ones((4, 6), dtype=bool)
    mask[:, ::2] = False
    said = localisation(case_of("scaled_dot_product_attention", (Q, K, V, mask), student=additive_mask))
    assert said == "Where it fails: right on small values, wrong on these larger ones."
    right = case_of("scaled_dot_product_attention", (Q, K, V, mask), student=attn_reference.scaled_dot_product_attention)
    assert diagnose(right) == ()


def test_everywhere_tried_names_at_most_the_first_few_variations_still_wrong():
    from autograder.diagnose.localise import STILL_WRONG_SHOWN

    def noise(Q, K, V, A, dZ, mask=None):
        return tuple(part + 1.0 for part in reference_backward(Q, K, V, A, dZ, mask))

    Q, K, V, _, dZ = backward_inputs(batch=(2,))
    K, V = K[0], V[0]  # they broadcast against Q's batch
    mask = np.ones((4, 6), dtype=bool)
    mask[:, 0] = False
    _, A = attn_reference.scaled_dot_product_attention(Q, K, V, mask)
    said = localisation(case_of(BACKWARD, (Q, K, V, A, dZ, mask), student=noise))
    assert said.startswith("Where it fails: everywhere tried, also ")
    assert len(said.facts["conditions"].facts) == STILL_WRONG_SHOWN, said  # the parts joined into the sentence


def _scores_inputs():
    return normal((3, 4), 7), normal((3, 6, 4), 8), normal((4, 4), 9)  # s (B, d_s), H (B, T, d_h), W_a (d_s, d_h)


def test_scores_returned_as_weights_are_said_to_be_the_softmax_of_the_expected():
    def weights(s, H, W_a):
        return softmax_along(attn_reference.general_score(s, H, W_a))

    said = relation(case_of("general_score", _scores_inputs(), student=weights))
    assert "exponentiated and normalised to sum to 1 along T (axis -1)" in str(said)
    honest = relation(case_of("general_score", _scores_inputs(), student=lambda s, H, W_a: 2 * softmax_along(
        attn_reference.general_score(s, H, W_a))))
    assert "exponentiated" not in str(honest)  # twice the weights: no longer a softmax of the expected


def test_a_cosine_where_a_dot_product_belongs_is_said_as_the_expected_over_the_vectors_lengths():
    s, H, _ = _scores_inputs()

    def cosine(s, H):
        return attn_reference.dot_score(s, H) / (np.linalg.norm(s, axis=-1)[..., None] * np.linalg.norm(H, axis=-1))

    said = str(relation(case_of("dot_score", (s, H), student=cosine)))
    assert "divided by the lengths of the vectors of s and H" in said
    only_h = str(relation(case_of("dot_score", (s, H), student=lambda s, H: attn_reference.dot_score(s, H) / np.linalg.norm(H, axis=-1))))
    assert "lengths of the vectors of H" in only_h and "s and H" not in only_h
    squared = str(relation(case_of("dot_score", (s, H), student=lambda s, H: cosine(s, H) ** 3)))
    assert "lengths" not in squared
