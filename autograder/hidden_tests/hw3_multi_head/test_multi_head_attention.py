"""Hidden tests of multi_head_attention (hw3, question 3)."""

import numpy as np
import pytest

from autograder.grade.expect import expect_dtype, expect_reference, float32_tolerance

question = pytest.mark.question("multi_head_attention")
FUNCTION = "multi_head_attention"
D_MODEL = 8


def _inputs(seed: int, batch: tuple = (2,), n_q: int = 3, n_kv: int = 5, dtype=np.float64):
    rng = np.random.default_rng(seed)
    X_q = rng.standard_normal((*batch, n_q, D_MODEL))  # (..., n_q, d_model)
    X_kv = rng.standard_normal((*batch, n_kv, D_MODEL))  # (..., n_kv, d_model)
    weights = [rng.standard_normal((D_MODEL, D_MODEL)) / np.sqrt(D_MODEL) for _ in range(4)]
    return [a.astype(dtype) for a in (X_q, X_kv, *weights)]


@question(weight=2)
@pytest.mark.parametrize("heads", [1, 2, 4])
def test_cross_attention_head_counts(submission, tol, heads):
    """Cross-attention (n_q != n_kv) with 1, 2 and 4 heads."""
    expect_reference(submission, tol, FUNCTION, *_inputs(91), heads, what=f"multi_head_attention with {heads} heads")


@question
def test_unbatched_self_attention(submission, tol):
    """Self-attention on one (n, d_model) sequence."""
    X_q, _, *weights = _inputs(92, batch=(), n_q=4)
    expect_reference(submission, tol, FUNCTION, X_q, X_q, *weights, 2, what="self-attention on one sequence")


@question(weight=2)
def test_causal_mask_applies_to_every_head(submission, tol):
    """A causal (n, n) mask applies to every head."""
    X_q, _, *weights = _inputs(93, n_q=4)
    mask = np.tril(np.ones((4, 4), dtype=bool))
    expect_reference(submission, tol, FUNCTION, X_q, X_q, *weights, 4, mask, what="multi-head attention with a causal mask")


@question
def test_float32(submission, tol):
    """float32 inputs give float32 outputs."""
    actual = expect_reference(
        submission, float32_tolerance(tol), FUNCTION, *_inputs(94, dtype=np.float32), 2, what="multi-head attention on float32"
    )
    expect_dtype(actual, np.float32, "multi-head attention on float32")
