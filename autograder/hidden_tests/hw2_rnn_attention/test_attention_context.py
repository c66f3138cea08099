"""Hidden tests of attention_context (hw2, question 5)."""

import numpy as np
import pytest

from autograder.grade.expect import expect_reference

question = pytest.mark.question("attention_context")
FUNCTION = "attention_context"
B, T, D_H = 3, 6, 4


def _inputs(seed: int, batch: tuple = (B,)):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((*batch, T)) * 2, rng.standard_normal((*batch, T, D_H))  # (..., T), (..., T, d_h)


@question(weight=2)
def test_batched_without_mask(submission, tol):
    """Context vectors and weights for batched scores."""
    expect_reference(submission, tol, FUNCTION, *_inputs(71), what="attention_context on a batch")


@question
def test_unbatched(submission, tol):
    """One decoder step: scores (T,), states (T, d_h)."""
    expect_reference(submission, tol, FUNCTION, *_inputs(72, batch=()), what="attention_context on one step")


@question(weight=2)
def test_padding_mask(submission, tol):
    """Padded source positions (mask 0) get weight 0."""
    scores, H = _inputs(73)
    lengths = np.array([6, 4, 2])
    mask = (np.arange(T)[None, :] < lengths[:, None]).astype(np.int64)  # (B, T)
    expect_reference(submission, tol, FUNCTION, scores, H, mask, what="attention_context with padding")


@question
def test_mask_broadcast_over_batch(submission, tol):
    """One (T,) boolean mask shared by the whole batch."""
    scores, H = _inputs(74)
    mask = np.array([True, True, False, True, False, True])
    expect_reference(submission, tol, FUNCTION, scores, H, mask, what="attention_context with a shared mask")


@question
def test_large_scores(submission, tol):
    """Scores in the thousands stay finite."""
    scores, H = _inputs(75)
    expect_reference(submission, tol, FUNCTION, scores * 1000, H, what="attention_context with large scores")
