"""Hidden tests of scaled_dot_product_attention_backward (hw4, question 2).

Sizes are chosen so that d_k, d_v, L_q, L_k and the batch size all differ: a missing
transpose then fails to broadcast or gives a different answer, and scaling by the wrong
dimension shows. A square self-attention case catches the transposes that only a shape
error would otherwise reveal.
"""

import math

import numpy as np
import pytest

from attn_reference import numerical_gradient, scaled_dot_product_attention, softmax
from autograder.grade.compare import Tolerance, first_mismatch
from autograder.grade.expect import expect, expect_dtype, expect_reference, float32_tolerance

question = pytest.mark.question("scaled_dot_product_attention_backward")
FUNCTION = "scaled_dot_product_attention_backward"
#: Batch, queries, keys, key size and value size, all different.
B, L_Q, L_K, D_K, D_V = 2, 3, 5, 4, 6
#: Centred differences with eps = 1e-5 on values of order 1 are good to about 1e-9.
NUMERICAL_TOLERANCE = Tolerance(rtol=1e-5, atol=1e-7)
#: The fill many PyTorch implementations give masked scores instead of -inf.
FINITE_FILL = -1e9
GRADIENT_NAMES = ("dQ", "dK", "dV")


def _problem(seed: int, q_batch=(B,), kv_batch=(B,), L_q=L_Q, L_k=L_K, dtype=np.float64, mask=None):
    """Q, K, V, the forward weights A and an upstream gradient dZ."""
    rng = np.random.default_rng(seed)
    Q = rng.standard_normal((*q_batch, L_q, D_K)).astype(dtype)  # (..., L_q, d_k)
    K = rng.standard_normal((*kv_batch, L_k, D_K)).astype(dtype)  # (..., L_k, d_k)
    V = rng.standard_normal((*kv_batch, L_k, D_V)).astype(dtype)  # (..., L_k, d_v)
    Z, A = scaled_dot_product_attention(Q, K, V, mask)
    dZ = rng.standard_normal(Z.shape).astype(dtype)  # (..., L_q, d_v)
    return Q, K, V, A, dZ


@question
def test_unbatched(submission, tol):
    """2-D inputs with L_q != L_k and d_k != d_v."""
    expect_reference(submission, tol, FUNCTION, *_problem(91, q_batch=(), kv_batch=()), what="attention backward on 2-D inputs")


@question(weight=2)
def test_batched(submission, tol):
    """Batched (2, L, d) inputs."""
    expect_reference(submission, tol, FUNCTION, *_problem(92), what="attention backward on batched inputs")


@question
def test_two_batch_dimensions(submission, tol):
    """Two leading batch dimensions (2, 3, L, d)."""
    expect_reference(submission, tol, FUNCTION, *_problem(93, q_batch=(2, 3), kv_batch=(2, 3)), what="attention backward with two batch dimensions")


@question(weight=2)
def test_self_attention_square_scores(submission, tol):
    """L_q = L_k = 4: every product fits, so only the values tell a missing transpose."""
    expect_reference(submission, tol, FUNCTION, *_problem(94, L_q=4, L_k=4), what="attention backward with L_q = L_k")


@question
def test_broadcast_batch_is_summed_back(submission, tol):
    """Q (2, 3, L_q, d_k) against K, V (3, L_k, d): dK and dV are summed over the broadcast axis."""
    expect_reference(submission, tol, FUNCTION, *_problem(95, q_batch=(2, 3), kv_batch=(3,)), what="attention backward with broadcast batch dimensions")


@question
def test_float32_stays_float32(submission, tol):
    """float32 inputs give float32 dQ, dK and dV."""
    inputs = _problem(96, dtype=np.float32)
    actual = expect_reference(submission, float32_tolerance(tol), FUNCTION, *inputs, what="attention backward on float32 inputs")
    expect_dtype(actual, np.float32, "attention backward on float32 inputs")


@question(weight=2)
def test_causal_mask(submission, tol):
    """A causal (L, L) boolean mask over batched self-attention."""
    mask = np.tril(np.ones((4, 4), dtype=bool))
    expect_reference(submission, tol, FUNCTION, *_problem(97, L_q=4, L_k=4, mask=mask), mask, what="attention backward with a causal mask")


@question
def test_integer_mask(submission, tol):
    """A 0/1 integer mask means the same as a boolean one."""
    mask = (np.random.default_rng(98).random((L_Q, L_K)) < 0.6).astype(np.int64)
    mask[:, 0] = 1  # every query keeps at least one key
    expect_reference(submission, tol, FUNCTION, *_problem(99, mask=mask), mask, what="attention backward with a 0/1 integer mask")


@question(weight=2)
def test_padding_queries_get_exactly_zero_gradient(submission, tol):
    """Queries with no allowed key get dQ = 0, even when the forward pass filled masked scores with -1e9."""
    Q, K, V, _, dZ = _problem(100)
    mask = np.ones((B, L_Q, L_K), dtype=bool)
    mask[1, :, 3:] = False  # padding keys
    mask[1, 2, :] = False  # a padding query: no allowed key at all
    scores = np.where(mask, Q @ np.swapaxes(K, -1, -2) / math.sqrt(D_K), FINITE_FILL)
    A = softmax(scores)  # (B, L_q, L_k): the padding query's row is uniform, not 0
    actual = expect_reference(submission, tol, FUNCTION, Q, K, V, A, dZ, mask, what="attention backward with padding")
    expect(np.all(np.asarray(actual[0])[1, 2] == 0), "attention backward: a query with no allowed key should get a gradient of exactly 0")


@question(weight=2)
def test_agrees_with_centred_differences(submission, tol):
    """dQ, dK, dV equal the numerical gradients of L = sum(Z * G) under a causal mask."""
    mask = np.tril(np.ones((4, 4), dtype=bool))
    Q, K, V, A, G = _problem(101, q_batch=(), kv_batch=(), L_q=4, L_k=4, mask=mask)

    def loss(q, k, v):
        return np.sum(scaled_dot_product_attention(q, k, v, mask)[0] * G)

    numerical = (
        numerical_gradient(lambda x: loss(x, K, V), Q),
        numerical_gradient(lambda x: loss(Q, x, V), K),
        numerical_gradient(lambda x: loss(Q, K, x), V),
    )
    actual = submission.call(FUNCTION, Q, K, V, A, G, mask)
    expect(isinstance(actual, tuple) and len(actual) == 3, "attention backward should return (dQ, dK, dV)")
    for name, expected, got in zip(GRADIENT_NAMES, numerical, actual):
        got = np.asarray(got)
        expect(got.shape == expected.shape, f"{name}: expected shape {expected.shape}, got {got.shape}")
        wrong = first_mismatch(expected, got.astype(np.float64), NUMERICAL_TOLERANCE)
        expect(not wrong, f"{name} differs from the centred-difference gradient of sum(Z * G) {wrong}")
