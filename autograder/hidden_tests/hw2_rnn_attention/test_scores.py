"""Hidden tests of the alignment scores (hw2, questions 1-4).

Sizes d_s, d_h, d_a and T all differ, so swapped or transposed weights cannot go unnoticed;
a second, square case checks bugs that shapes alone would not reveal.
"""

import numpy as np
import pytest

from autograder.grade.expect import expect_dtype, expect_reference, float32_tolerance

#: Batch, source length, decoder state size, encoder state size, attention size.
B, T, D_S, D_H, D_A = 2, 5, 3, 4, 6


def _states(seed: int, batch: tuple = (B,), d_s: int = D_S, d_h: int = D_H):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((*batch, d_s)), rng.standard_normal((*batch, T, d_h))  # (..., d_s), (..., T, d_h)


def _weights(seed: int, *shapes):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) for shape in shapes]


additive = pytest.mark.question("additive_score")
dot = pytest.mark.question("dot_score")
general = pytest.mark.question("general_score")
concat = pytest.mark.question("concat_score")


@additive(weight=2)
def test_additive_batched(submission, tol):
    """Bahdanau scores for batched states with d_s, d_h, d_a all different."""
    s, H = _states(51)
    W_a, U_a, v_a = _weights(52, (D_A, D_S), (D_A, D_H), (D_A,))
    expect_reference(submission, tol, "additive_score", s, H, W_a, U_a, v_a, what="additive_score on batched states")


@additive
def test_additive_square(submission, tol):
    """Bahdanau scores when d_s = d_h = d_a (so swapped weights still have valid shapes)."""
    s, H = _states(53, batch=(), d_s=4, d_h=4)
    W_a, U_a, v_a = _weights(54, (4, 4), (4, 4), (4,))
    expect_reference(submission, tol, "additive_score", s, H, W_a, U_a, v_a, what="additive_score with square weights")


@additive
def test_additive_float32(submission, tol):
    """float32 inputs give float32 scores."""
    s, H = (a.astype(np.float32) for a in _states(55))
    W_a, U_a, v_a = (w.astype(np.float32) for w in _weights(56, (D_A, D_S), (D_A, D_H), (D_A,)))
    actual = expect_reference(submission, float32_tolerance(tol), "additive_score", s, H, W_a, U_a, v_a, what="additive_score on float32")
    expect_dtype(actual, np.float32, "additive_score on float32")


@dot(weight=2)
def test_dot_batched(submission, tol):
    """Dot scores for batched states."""
    s, H = _states(57, d_s=D_H)
    expect_reference(submission, tol, "dot_score", s, H, what="dot_score on batched states")


@dot
def test_dot_unbatched(submission, tol):
    """Dot scores for one decoder state."""
    s, H = _states(58, batch=(), d_s=D_H)
    expect_reference(submission, tol, "dot_score", s, H, what="dot_score on one state")


@general(weight=2)
def test_general_rectangular(submission, tol):
    """General scores with a (d_s, d_h) matrix, d_s != d_h."""
    s, H = _states(59)
    (W_a,) = _weights(60, (D_S, D_H))
    expect_reference(submission, tol, "general_score", s, H, W_a, what="general_score with d_s != d_h")


@general
def test_general_square(submission, tol):
    """General scores with a square, non-symmetric W_a."""
    s, H = _states(61, d_s=4, d_h=4)
    (W_a,) = _weights(62, (4, 4))
    expect_reference(submission, tol, "general_score", s, H, W_a, what="general_score with square W_a")


@concat(weight=2)
def test_concat_batched(submission, tol):
    """Concat scores with W_a of shape (d_a, d_s + d_h)."""
    s, H = _states(63)
    W_a, v_a = _weights(64, (D_A, D_S + D_H), (D_A,))
    expect_reference(submission, tol, "concat_score", s, H, W_a, v_a, what="concat_score on batched states")


@concat
def test_concat_equal_sizes(submission, tol):
    """Concat scores when d_s = d_h (so the concatenation order matters only in values)."""
    s, H = _states(65, batch=(), d_s=4, d_h=4)
    W_a, v_a = _weights(66, (D_A, 8), (D_A,))
    expect_reference(submission, tol, "concat_score", s, H, W_a, v_a, what="concat_score with d_s = d_h")
