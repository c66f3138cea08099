"""Hidden tests of split_heads and merge_heads (hw3, questions 1-2)."""

import numpy as np
import pytest

from autograder.grade.expect import expect, expect_reference

split = pytest.mark.question("split_heads")
merge = pytest.mark.question("merge_heads")


def _x(seed: int, shape: tuple):
    return np.random.default_rng(seed).standard_normal(shape)


@split(weight=2)
@pytest.mark.parametrize("shape, heads", [((5, 12), 3), ((2, 5, 8), 4), ((2, 3, 4, 6), 2)])
def test_split_matches_reference(submission, tol, shape, heads):
    """split_heads gives head h the features h*d_head .. (h+1)*d_head - 1."""
    expect_reference(submission, tol, "split_heads", _x(81, shape), heads, what=f"split_heads of {shape} into {heads} heads")


@split
def test_split_one_head(submission, tol):
    """One head is the whole model dimension with a new head axis."""
    expect_reference(submission, tol, "split_heads", _x(82, (2, 4, 6)), 1, what="split_heads with one head")


@merge(weight=2)
@pytest.mark.parametrize("shape", [(3, 5, 4), (2, 4, 5, 2), (2, 2, 3, 7, 2)])
def test_merge_matches_reference(submission, tol, shape):
    """merge_heads concatenates the heads' features per position."""
    expect_reference(submission, tol, "merge_heads", _x(83, shape), what=f"merge_heads of {shape}")


@merge
def test_merge_inverts_split(submission, tol):
    """merge_heads(split_heads(X)) gives X back, computed with your own two functions."""
    X = _x(84, (2, 5, 12))
    split_x = submission.call("split_heads", X, 3)
    expect(isinstance(split_x, np.ndarray) and split_x.shape == (2, 3, 5, 4), "split_heads(X, 3) of a (2, 5, 12) X should have shape (2, 3, 5, 4)")
    merged = submission.call("merge_heads", split_x)
    expect(isinstance(merged, np.ndarray) and merged.shape == X.shape, f"merge_heads(split_heads(X)) should have shape {X.shape}")
    expect(bool(np.allclose(merged, X, rtol=tol.rtol, atol=tol.atol)), "merge_heads(split_heads(X)) should give X back")
