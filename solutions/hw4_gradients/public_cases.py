"""Random public cases of hw4, built by `attn-course build` into the release's public_cases.npz.

Every property grading judges has at least one case here, with inputs of our own: softmax
backward along the last, a middle and the first axis (square rows too), weights exactly 0
(masked) and float32 kept; attention backward with no, one and two batch axes, broadcast
batch axes summed back, L_q = L_k, float32 kept, each documented mask (boolean causal, 0/1
integers, a query with no allowed key); the gradient-norm experiment scaled and unscaled.
Every case also checks that the inputs are left unmodified.
"""

import numpy as np

from attn_reference import scaled_dot_product_attention, softmax
from autograder.build.public_cases import PublicCase, Seed

BACKWARD = "scaled_dot_product_attention_backward"


def _softmax_backward_cases(rng) -> list:
    def weights_and_gradient(shape, axis=-1, dtype=np.float64):
        return (softmax(2 * rng.standard_normal(shape), axis=axis).astype(dtype), rng.standard_normal(shape).astype(dtype))

    masked_scores = rng.standard_normal((3, 5))
    masked_scores[rng.random((3, 5)) < 0.4] = -np.inf
    masked_scores[:, 1] = 0.0
    return [
        PublicCase("softmax_backward_batched", "softmax_backward", weights_and_gradient((2, 3, 5)), weight=2),
        PublicCase("softmax_backward_square", "softmax_backward", weights_and_gradient((5, 5))),
        PublicCase("softmax_backward_axis_0", "softmax_backward", weights_and_gradient((5, 3), axis=0), {"axis": 0}),
        PublicCase("softmax_backward_axis_1", "softmax_backward", weights_and_gradient((2, 6, 3), axis=1), {"axis": 1}),
        PublicCase("softmax_backward_masked", "softmax_backward", (softmax(masked_scores), rng.standard_normal((3, 5)))),
        PublicCase("softmax_backward_float32", "softmax_backward", weights_and_gradient((3, 5), dtype=np.float32)),
    ]


def _backward_inputs(rng, batch: tuple, L_q: int = 3, L_k: int = 6, mask=None, kv_batch=None, dtype=np.float64):
    """(Q, K, V, A, dZ[, mask]) with d_k = 5, d_v = 7 and A from the forward pass."""
    kv = batch if kv_batch is None else kv_batch
    Q = rng.standard_normal((*batch, L_q, 5)).astype(dtype)
    K, V = rng.standard_normal((*kv, L_k, 5)).astype(dtype), rng.standard_normal((*kv, L_k, 7)).astype(dtype)
    Z, A = scaled_dot_product_attention(Q, K, V, mask)
    dZ = rng.standard_normal(Z.shape).astype(dtype)
    return (Q, K, V, A, dZ) if mask is None else (Q, K, V, A, dZ, mask)


def _attention_backward_cases(rng) -> list:
    mask = rng.random((3, 6)) < 0.7
    mask[:, 0] = True
    causal = np.tril(np.ones((6, 6), dtype=bool))
    no_key = mask.copy()
    no_key[1] = False  # a query with no allowed key
    Q, K, V, _, dZ = _backward_inputs(rng, (2,))
    filled = np.where(no_key, Q @ np.swapaxes(K, -1, -2) / np.sqrt(5), -1e9)
    return [
        PublicCase("attention_backward_unbatched", BACKWARD, _backward_inputs(rng, ())),
        PublicCase("attention_backward_batched", BACKWARD, _backward_inputs(rng, (2,)), weight=2),
        PublicCase("attention_backward_two_batch_axes", BACKWARD, _backward_inputs(rng, (2, 3))),
        PublicCase("attention_backward_square", BACKWARD, _backward_inputs(rng, (2,), L_q=6), weight=2),
        PublicCase("attention_backward_broadcast_masked", BACKWARD, _backward_inputs(rng, (2,), mask=mask, kv_batch=()),
                   weight=2),
        PublicCase("attention_backward_float32", BACKWARD, _backward_inputs(rng, (2,), dtype=np.float32)),
        PublicCase("attention_backward_causal", BACKWARD, _backward_inputs(rng, (2,), L_q=6, mask=causal), weight=2),
        PublicCase("attention_backward_integer_mask", BACKWARD, _backward_inputs(rng, (2,), mask=mask.astype(int))),
        PublicCase("attention_backward_query_without_keys", BACKWARD, (Q, K, V, softmax(filled), dZ, no_key), weight=2),
    ]


def cases(rng):
    """The cases; ``rng`` is seeded by the build, so they are the same on every build."""
    return [
        *_softmax_backward_cases(rng),
        *_attention_backward_cases(rng),
        PublicCase("gradient_norm_d_k_24", "softmax_gradient_norm", (24, 6, 300, Seed(11)), {"scaled": True}, weight=2),
        PublicCase("gradient_norm_unscaled", "softmax_gradient_norm", (48, 8, 300, Seed(12)), {"scaled": False}, weight=2),
    ]
