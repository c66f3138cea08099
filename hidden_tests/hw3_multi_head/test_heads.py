"""Hidden tests of split_heads and merge_heads (hw3, questions 1-2). Inputs are drawn afresh on every run."""

import numpy as np
import pytest

from autograder.judge.draw import HEAD_COUNTS, HEAD_SIZES
from autograder.judge.compare import reference_output
from autograder.grade.expect import expect, expect_reference
from autograder.i18n import msg
from autograder.judge.claims import draws

split = pytest.mark.question("split_heads")
merge = pytest.mark.question("merge_heads")
#: How many batch axes each parametrised case has.
BATCH_AXES = (0, 1, 2)


def _sizes(draw) -> tuple[int, int, int]:
    """(num_heads, n, d_head), all different, and n different from d_model too."""
    heads = draw.size(HEAD_COUNTS)
    d_head = draw.size(HEAD_SIZES)
    draw.take(heads * d_head)  # d_model: n must differ from it, or a transpose of (n, d_model) keeps the shape
    return heads, draw.size(), d_head


def _batch(draw, ndim: int, *sizes: int) -> tuple[int, ...]:
    return draw.batch(ndim, avoid=sizes) if ndim else ()


@split(weight=2)
@pytest.mark.parametrize("batch_axes", BATCH_AXES)
def test_split_matches_reference(submission, tol, draw, batch_axes):
    """split_heads gives head h the features h*d_head .. (h+1)*d_head - 1."""
    heads, n, d_head = _sizes(draw)
    X = draw.normal((*_batch(draw, batch_axes, heads, n, d_head), n, heads * d_head))
    expect_reference(submission, tol, "split_heads", X, heads, what=msg("split_heads of {shape} into {heads} heads", shape=str(X.shape), heads=str(heads)))


@split
def test_split_one_head(submission, tol, draw):
    """One head is the whole model dimension with a new head axis."""
    n, d_model = draw.sizes(2)
    X = draw.normal((*_batch(draw, 1, n, d_model), n, d_model))
    expect_reference(submission, tol, "split_heads", X, 1, what=msg("split_heads with one head"))


@split
@draws(same=(("num_heads", "d_model"),))  # one feature per head: as many heads as features
def test_split_one_feature_per_head(submission, tol, draw):
    """num_heads = d_model is valid: every head holds one feature (d_head = 1)."""
    n, d_model = draw.sizes(2)
    X = draw.normal((*_batch(draw, 1, n, d_model), n, d_model))
    expect_reference(submission, tol, "split_heads", X, d_model, what=msg("split_heads with one feature per head"))


@split
def test_split_a_nested_list(submission, tol, draw):
    """X is array_like: a nested list of floats is split like the array it stands for."""
    heads, n, d_head = _sizes(draw)
    X = draw.normal((n, heads * d_head)).tolist()
    expect_reference(submission, tol, "split_heads", X, heads, what=msg("split_heads of a nested list"))


@split
def test_split_float32(submission, tol, draw):
    """float32 input stays float32."""
    heads, n, d_head = _sizes(draw)
    X = draw.normal((*_batch(draw, 1, heads, n, d_head), n, heads * d_head), dtype=np.float32)
    expect_reference(submission, tol, "split_heads", X, heads, what=msg("split_heads of float32 input"))


@merge(weight=2)
@pytest.mark.parametrize("batch_axes", BATCH_AXES)
def test_merge_matches_reference(submission, tol, draw, batch_axes):
    """merge_heads concatenates the heads' features per position."""
    heads, n, d_head = _sizes(draw)
    X = draw.normal((*_batch(draw, batch_axes, heads, n, d_head), heads, n, d_head))
    expect_reference(submission, tol, "merge_heads", X, what=msg("merge_heads of {shape}", shape=str(X.shape)))


@merge
def test_merge_undoes_split(submission, tol, draw):
    """merge_heads(split_heads(X, h)) gives X back."""
    heads, n, d_head = _sizes(draw)
    X = draw.normal((*_batch(draw, 1, heads, n, d_head), n, heads * d_head))
    split_x = reference_output("split_heads", (X, heads), {})  # the reference's: a split bug costs only split points
    merged = expect_reference(submission, tol, "merge_heads", split_x, what=msg("merge_heads(split_heads(X))"))
    expect(bool(np.allclose(merged, X, rtol=tol.rtol, atol=tol.atol)), msg("merge_heads(split_heads(X)) should give X back"))


@merge
def test_merge_float32(submission, tol, draw):
    """float32 input stays float32."""
    heads, n, d_head = _sizes(draw)
    X = draw.normal((*_batch(draw, 1, heads, n, d_head), heads, n, d_head), dtype=np.float32)
    expect_reference(submission, tol, "merge_heads", X, what=msg("merge_heads of float32 input"))


@split
def test_split_integers(submission, tol, draw):
    """Integer input is computed in float64."""
    heads, n, d_head = _sizes(draw)
    X = np.round(3 * draw.normal((*_batch(draw, 1, heads, n, d_head), n, heads * d_head))).astype(np.int64)
    expect_reference(submission, tol, "split_heads", X, heads, what=msg("split_heads of integer input"))


@merge
def test_merge_batch_of_one(submission, tol, draw):
    """A batch of one keeps its axis: (1, num_heads, n, d_head) gives (1, n, d_model)."""
    heads, n, d_head = _sizes(draw)
    X = draw.normal((1, heads, n, d_head))
    expect_reference(submission, tol, "merge_heads", X, what=msg("merge_heads of {shape}", shape=str(X.shape)))


@merge
def test_merge_integers(submission, tol, draw):
    """Integer input is computed in float64."""
    heads, n, d_head = _sizes(draw)
    X = np.round(3 * draw.normal((*_batch(draw, 1, heads, n, d_head), heads, n, d_head))).astype(np.int64)
    expect_reference(submission, tol, "merge_heads", X, what=msg("merge_heads of integer input"))


@merge
def test_merge_float16(submission, tol, draw):
    """float16 input (any input but float32) is computed in float64."""
    heads, n, d_head = _sizes(draw)
    X = draw.normal((heads, n, d_head)).astype(np.float16)
    expect_reference(submission, tol, "merge_heads", X, what=msg("merge_heads of float16 input"))
