"""Hidden tests of softmax (hw1, question 1). Inputs are drawn afresh on every run."""

import numpy as np
import pytest

from autograder.grade.expect import expect, expect_reference
from autograder.i18n import msg

question = pytest.mark.question("softmax")
FUNCTION = "softmax"
#: Magnitude at which an unshifted exp overflows float64.
HUGE = 1e4
#: Spread of ordinary scores.
SPREAD = 3.0


def _scores(draw, ndim_batch: int | None = None) -> np.ndarray:
    """Scores of shape batch + (n,), n different from every batch size."""
    n = draw.size()
    return draw.normal((*draw.batch(ndim_batch, avoid=(n,)), n), SPREAD)


@question
def test_worked_example_row(submission, tol):
    """softmax([0.5, 0, 0]) gives 0.4519 and 0.2741."""
    expect_reference(submission, tol, FUNCTION, np.array([0.5, 0.0, 0.0]), what=msg("softmax of the worked example"))


@question(weight=2)
def test_random_batched_last_axis(submission, tol, draw):
    """softmax over the last axis of a batched array."""
    x = _scores(draw)
    expect_reference(submission, tol, FUNCTION, x, what=msg("softmax of a {shape} array", shape=str(x.shape)))


@question
def test_axis_argument(submission, tol, draw):
    """softmax(x, axis=...) normalises the axis it is given: every axis of a 3-D array, counted from either end."""
    x = _scores(draw, ndim_batch=2)  # three sizes, all different: the wrong axis shows
    for axis in (*range(x.ndim), *range(-x.ndim, 0)):  # first, middle and last; positive and negative
        expect_reference(submission, tol, FUNCTION, x, axis=axis,
                         what=msg("softmax(x, axis={axis}) of a {shape} array", axis=str(axis), shape=str(x.shape)))


@question(weight=2)
def test_stable_for_huge_scores(submission, tol, draw):
    """softmax stays finite and correct for scores around +1e4."""
    x = HUGE + _scores(draw)
    expect_reference(submission, tol, FUNCTION, x, what=msg("softmax of scores near 1e4"))


@question
def test_stable_for_very_negative_scores(submission, tol, draw):
    """softmax has no 0/0 for scores around -1e4."""
    x = -HUGE + _scores(draw)
    expect_reference(submission, tol, FUNCTION, x, what=msg("softmax of scores near -1e4"))


@question
def test_rows_on_very_different_scales(submission, tol, draw):
    """Each row is shifted by its own large constant: every row needs its own maximum."""
    x = _scores(draw, ndim_batch=1)  # (B, n)
    offsets = draw.normal((x.shape[0], 1), HUGE / 10)  # (B, 1): rows thousands apart
    expect_reference(submission, tol, FUNCTION, x + offsets, what=msg("softmax of rows on very different scales"))


@question
def test_minus_infinity_gets_zero_weight(submission, tol, draw):
    """Entries of -inf get weight exactly 0 when the row has a finite entry."""
    x = _scores(draw, ndim_batch=1)
    x[~draw.mask(x.shape, blocks=False)] = -np.inf  # some rows may have no -inf entry; some entry is -inf
    actual = expect_reference(submission, tol, FUNCTION, x, what=msg("softmax with -inf entries"))
    if actual is not None:  # within the tolerance, and exact where the docstring is: exp(-inf) is 0, not a tiny weight
        weights = np.asarray(actual)[np.isneginf(x)]
        expect(np.all(weights == 0), msg("softmax with -inf entries: their weights must be exactly 0, got values up to "
                                         "{largest}", largest=f"{float(np.max(np.abs(weights), initial=0.0)):.3g}"))


@question
def test_a_slice_entirely_minus_infinity_is_nan(submission, tol, draw):
    """A slice that is entirely -inf has no softmax: its entries are NaN, and the other slices keep their weights."""
    x = _scores(draw, ndim_batch=1)  # (B, n), B >= 2
    row = draw.choice(range(x.shape[0]))
    x[row] = -np.inf  # one whole row
    actual = expect_reference(submission, tol, FUNCTION, x, what=msg("softmax with a row that is entirely -inf"))
    if actual is not None:  # the comparison accepts anything where the reference is NaN; the docstring says NaN
        expect(np.all(np.isnan(np.asarray(actual, dtype=np.float64)[row])),
               msg("softmax with a row that is entirely -inf: that row must be NaN (it has no softmax)"))


@question
def test_float16_gives_float64_weights(submission, tol, draw):
    """float16 scores (any input but float32) give float64 weights."""
    x = _scores(draw).astype(np.float16)
    expect_reference(submission, tol, FUNCTION, x, what=msg("softmax of float16 input"))


@question
def test_integer_scores_give_float64_weights(submission, tol, draw):
    """Integer scores are computed in float64, small integer types too (uint8 has no negative numbers to shift to)."""
    x = np.round(_scores(draw)).astype(np.int64)
    expect_reference(submission, tol, FUNCTION, x, what=msg("softmax of integer scores"))
    small = np.clip(x - x.min(), 0, 100)
    for dtype in (np.uint8, np.int8):
        expect_reference(submission, tol, FUNCTION, small.astype(dtype),
                         what=msg("softmax of {dtype} scores", dtype=np.dtype(dtype).name))


@question
def test_a_nested_list_is_array_like(submission, tol, draw):
    """x is array_like: a nested list of scores gives the weights of the array it stands for."""
    x = _scores(draw).tolist()
    expect_reference(submission, tol, FUNCTION, x, what=msg("softmax of a nested list"))


@question
def test_float32_stays_float32(submission, tol, draw):
    """float32 scores give float32 weights."""
    x = _scores(draw).astype(np.float32)
    expect_reference(submission, tol, FUNCTION, x, what=msg("softmax of float32 input"))


@question
def test_size_one_axes_are_kept(submission, tol, draw):
    """softmax of a (1, B, 1, n) array keeps every size-1 axis."""
    x = draw.normal((1, draw.batch(1)[0], 1, draw.size()), SPREAD)
    expect_reference(submission, tol, FUNCTION, x, what=msg("softmax of a {shape} array", shape=str(x.shape)))
