"""split_heads and merge_heads: against index loops, exact round trips, bad shapes."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attn_reference.heads import merge_heads, split_heads
from tests import strategies as S

MAX_HEADS = 4
MAX_D_HEAD = 3


def loop_split(X: np.ndarray, num_heads: int) -> np.ndarray:
    """``out[..., h, i, f] = X[..., i, h * d_head + f]``."""
    *batch, n, d_model = X.shape
    d_head = d_model // num_heads
    out = np.empty((*batch, num_heads, n, d_head), dtype=X.dtype)
    for b in np.ndindex(*batch):
        for h in range(num_heads):
            for i in range(n):
                for f in range(d_head):
                    out[b + (h, i, f)] = X[b + (i, h * d_head + f)]
    return out


def loop_merge(X: np.ndarray) -> np.ndarray:
    """``out[..., i, h * d_head + f] = X[..., h, i, f]``."""
    *batch, num_heads, n, d_head = X.shape
    out = np.empty((*batch, n, num_heads * d_head), dtype=X.dtype)
    for b in np.ndindex(*batch):
        for h in range(num_heads):
            for i in range(n):
                for f in range(d_head):
                    out[b + (i, h * d_head + f)] = X[b + (h, i, f)]
    return out


@st.composite
def model_inputs(draw):
    """X (..., n, d_model) with d_model = num_heads * d_head, and num_heads."""
    dtype = draw(S.float_dtypes())
    num_heads, d_head = draw(st.integers(1, MAX_HEADS)), draw(st.integers(1, MAX_D_HEAD))
    shape = draw(S.batch_shapes()) + (draw(S.lengths()), num_heads * d_head)
    return draw(S.float_arrays(dtype, shape)), num_heads


@st.composite
def head_inputs(draw):
    """Per-head arrays (..., num_heads, n, d_head)."""
    dtype = draw(S.float_dtypes())
    shape = draw(S.batch_shapes()) + (
        draw(st.integers(1, MAX_HEADS)),
        draw(S.lengths()),
        draw(st.integers(1, MAX_D_HEAD)),
    )
    return draw(S.float_arrays(dtype, shape))


@S.QUICK
@given(model_inputs())
def test_split_heads_matches_loop_exactly(case):
    X, num_heads = case
    split = split_heads(X, num_heads)
    assert split.dtype == X.dtype
    np.testing.assert_array_equal(split, loop_split(X, num_heads))


@S.QUICK
@given(head_inputs())
def test_merge_heads_matches_loop_exactly(X):
    merged = merge_heads(X)
    assert merged.dtype == X.dtype
    np.testing.assert_array_equal(merged, loop_merge(X))


@S.QUICK
@given(model_inputs())
def test_merge_undoes_split_exactly(case):
    X, num_heads = case
    np.testing.assert_array_equal(merge_heads(split_heads(X, num_heads)), X)


@S.QUICK
@given(head_inputs())
def test_split_undoes_merge_exactly(X):
    num_heads = X.shape[-3]
    np.testing.assert_array_equal(split_heads(merge_heads(X), num_heads), X)


def test_split_heads_gives_each_head_a_contiguous_feature_slice():
    X = np.arange(2 * 6, dtype=np.float64).reshape(2, 6)  # (n=2, d_model=6)
    split = split_heads(X, 3)  # (3, 2, 2)
    for h in range(3):
        np.testing.assert_array_equal(split[h], X[:, 2 * h : 2 * h + 2])


def test_integer_input_is_promoted_to_float64():
    assert split_heads(np.ones((2, 4), dtype=np.int32), 2).dtype == np.float64


@pytest.mark.parametrize("num_heads", [3, 5, 0, -2])
def test_split_heads_with_num_heads_not_dividing_d_model_raises_value_error_naming_the_shape(num_heads):
    X = np.zeros((2, 3, 4))  # d_model = 4
    with pytest.raises(ValueError, match=re.escape(str(X.shape))) as error:
        split_heads(X, num_heads)
    assert f"num_heads={num_heads}" in str(error.value)


def test_split_heads_of_a_vector_raises_value_error_naming_the_shape():
    with pytest.raises(ValueError, match=re.escape(str((4,)))):
        split_heads(np.zeros(4), 2)


def test_merge_heads_without_a_head_axis_raises_value_error_naming_the_shape():
    with pytest.raises(ValueError, match=re.escape(str((3, 4)))):
        merge_heads(np.zeros((3, 4)))
