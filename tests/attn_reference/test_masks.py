"""causal_mask and mask_scores: against loops, dtype rules, broadcasting and bad inputs."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attn_reference.masks import causal_mask, mask_scores
from tests import strategies as S


def loop_causal_mask(n: int) -> np.ndarray:
    """``mask[i, j]`` is True exactly when key j is not after query i."""
    mask = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(n):
            mask[i, j] = j <= i
    return mask


def loop_mask_scores(scores: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Copy ``scores`` (..., L_q, L_k), writing -inf wherever the broadcast mask is False."""
    allowed = np.broadcast_to(allowed, scores.shape)
    out = np.array(scores, copy=True)
    for index in np.ndindex(scores.shape):
        if not allowed[index]:
            out[index] = -np.inf
    return out


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_causal_mask_matches_loop(n):
    mask = causal_mask(n)
    assert mask.dtype == np.bool_
    assert mask.shape == (n, n)
    np.testing.assert_array_equal(mask, loop_causal_mask(n))


def test_causal_mask_accepts_numpy_integers():
    np.testing.assert_array_equal(causal_mask(np.int64(4)), loop_causal_mask(4))


@pytest.mark.parametrize("n", [0, -2, True, 2.0, "3", None])
def test_causal_mask_rejects_non_positive_or_non_integer_n(n):
    with pytest.raises(ValueError, match=re.escape(repr(n))):
        causal_mask(n)


@st.composite
def scores_and_mask(draw):
    """Scores (..., L_q, L_k) and a broadcastable boolean mask (any shape ending in L_k)."""
    dtype = draw(S.float_dtypes())
    batch = draw(S.batch_shapes())
    L_q, L_k = draw(S.lengths()), draw(S.lengths())
    scores = draw(S.float_arrays(dtype, batch + (L_q, L_k)))
    mask = draw(S.mask_shapes(batch, L_q, L_k).flatmap(S.row_masks))
    return scores, mask


@S.QUICK
@given(scores_and_mask())
def test_mask_scores_matches_loop_and_keeps_dtype(case):
    scores, mask = case
    masked = mask_scores(scores, mask)
    assert masked.dtype == scores.dtype
    assert masked.shape == scores.shape
    np.testing.assert_array_equal(masked, loop_mask_scores(scores, mask))


@S.QUICK
@given(scores_and_mask())
def test_mask_scores_leaves_allowed_scores_bit_for_bit(case):
    scores, mask = case
    masked = mask_scores(scores, mask)
    allowed = np.broadcast_to(mask, scores.shape)
    assert (masked[allowed] == scores[allowed]).all()
    assert (masked[~allowed] == -np.inf).all()


@S.QUICK
@given(scores_and_mask(), S.numeric_mask_dtypes())
def test_numeric_zero_one_mask_behaves_like_bool_mask(case, mask_dtype):
    scores, mask = case
    np.testing.assert_array_equal(mask_scores(scores, mask.astype(mask_dtype)), mask_scores(scores, mask))


def test_mask_none_returns_scores_unchanged():
    scores = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(mask_scores(scores, None), scores)


def test_mask_that_does_not_broadcast_raises_value_error_naming_both_shapes():
    scores = np.zeros((2, 3, 4))  # (batch, L_q, L_k)
    mask = np.ones((3, 5), dtype=bool)  # L_k of 5 instead of 4
    with pytest.raises(ValueError, match=re.escape(str(mask.shape))) as error:
        mask_scores(scores, mask)
    assert str(scores.shape) in str(error.value)


def test_mask_with_more_dimensions_than_scores_raises_value_error():
    scores = np.zeros((3, 4))  # (L_q, L_k)
    mask = np.ones((2, 3, 4), dtype=bool)
    with pytest.raises(ValueError, match=re.escape(str(mask.shape))):
        mask_scores(scores, mask)


@pytest.mark.parametrize("values", [[0, 2, 1], [0.5, 1.0, 1.0], [-1, 0, 1]])
def test_mask_with_values_other_than_zero_and_one_raises_value_error(values):
    with pytest.raises(ValueError, match="mask"):
        mask_scores(np.zeros((1, 3)), np.array([values]))
