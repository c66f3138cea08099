"""Hidden tests of scaled_dot_product_attention (hw1, question 3).

Shapes are chosen so that d_k, d_v, L_q, L_k and the batch size all differ: scaling by
the wrong dimension, or transposing the wrong axes, then gives a different answer.
"""

import numpy as np
import pytest

from autograder.grade.expect import expect_dtype, expect_reference, float32_tolerance

question = pytest.mark.question("scaled_dot_product_attention")
FUNCTION = "scaled_dot_product_attention"
#: Batch, queries, keys, key size and value size, all different.
B, L_Q, L_K, D_K, D_V = 2, 3, 5, 4, 6


def _qkv(seed: int, batch: tuple = (B,), dtype=np.float64):
    rng = np.random.default_rng(seed)
    Q = rng.standard_normal((*batch, L_Q, D_K))  # (..., L_q, d_k)
    K = rng.standard_normal((*batch, L_K, D_K))  # (..., L_k, d_k)
    V = rng.standard_normal((*batch, L_K, D_V))  # (..., L_k, d_v)
    return Q.astype(dtype), K.astype(dtype), V.astype(dtype)


@question
def test_worked_example(submission, tol):
    """The 3-token example: weights 0.4519 / 0.2741, Z = A V."""
    X = np.eye(3, 4)
    expect_reference(submission, tol, FUNCTION, X, X, X, what="attention on the worked example")


@question
def test_unbatched_d_v_unlike_d_k(submission, tol):
    """2-D inputs with L_q != L_k and d_k != d_v."""
    expect_reference(submission, tol, FUNCTION, *_qkv(21, batch=()), what="attention on 2-D inputs")


@question(weight=2)
def test_batched(submission, tol):
    """Batched (2, L, d) inputs."""
    expect_reference(submission, tol, FUNCTION, *_qkv(22), what="attention on batched inputs")


@question
def test_two_batch_dimensions(submission, tol):
    """Two leading batch dimensions (2, 3, L, d)."""
    expect_reference(submission, tol, FUNCTION, *_qkv(23, batch=(2, 3)), what="attention with two batch dimensions")


@question
def test_float32_stays_float32(submission, tol):
    """float32 inputs give float32 Z and A."""
    actual = expect_reference(submission, float32_tolerance(tol), FUNCTION, *_qkv(24, dtype=np.float32), what="attention on float32 inputs")
    expect_dtype(actual, np.float32, "attention on float32 inputs")


@question(weight=2)
def test_causal_mask(submission, tol):
    """A causal (L, L) boolean mask over batched self-attention."""
    rng = np.random.default_rng(25)
    X = rng.standard_normal((B, 4, D_K))  # (B, L, d_k)
    mask = np.tril(np.ones((4, 4), dtype=bool))
    expect_reference(submission, tol, FUNCTION, X, X, X, mask, what="attention with a causal mask")


@question
def test_padding_mask_broadcast(submission, tol):
    """A (B, 1, L_k) padding mask broadcast over the queries."""
    mask = np.ones((B, 1, L_K), dtype=bool)
    mask[0, 0, -2:] = False
    mask[1, 0, -1] = False
    expect_reference(submission, tol, FUNCTION, *_qkv(26), mask, what="attention with a padding mask")


@question
def test_integer_mask(submission, tol):
    """A 0/1 integer mask means the same as a boolean one."""
    mask = (np.random.default_rng(27).random((L_Q, L_K)) < 0.6).astype(np.int64)
    mask[:, 0] = 1  # every query keeps at least one key
    expect_reference(submission, tol, FUNCTION, *_qkv(28), mask, what="attention with a 0/1 integer mask")


@question
def test_large_scores_stay_finite(submission, tol):
    """Scores in the thousands do not overflow."""
    Q, K, V = _qkv(29)
    expect_reference(submission, tol, FUNCTION, Q * 100, K * 100, V, what="attention with very large scores")
