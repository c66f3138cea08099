"""softmax: against a loop over slices, its properties, and its numerical stability."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attn_reference.softmax import softmax
from tests import strategies as S

FLOAT64_RTOL, FLOAT64_ATOL = 1e-12, 1e-14
# float32 keeps ~7 significant digits; exp and the division each add a rounding error.
FLOAT32_RTOL, FLOAT32_ATOL = 1e-5, 1e-7
# Stability cases are compared with closed forms computed in float64.
STABLE_RTOL = {np.float32: 1e-6, np.float64: 1e-12}


def tolerances(dtype) -> dict:
    if np.dtype(dtype) == np.float32:
        return {"rtol": FLOAT32_RTOL, "atol": FLOAT32_ATOL}
    return {"rtol": FLOAT64_RTOL, "atol": FLOAT64_ATOL}


def loop_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """``exp(x_i) / sum_j exp(x_j)`` slice by slice, in Python floats.

    No max shift: the inputs of the comparison tests are bounded, so exp cannot overflow.
    ``math.exp(-inf)`` is 0, so -inf entries drop out of the sum.
    """
    moved = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)  # (..., n)
    out = np.empty(moved.shape)
    for index in np.ndindex(moved.shape[:-1]):
        exps = [math.exp(float(v)) for v in moved[index]]
        total = math.fsum(exps)
        for j, e in enumerate(exps):
            out[index + (j,)] = e / total
    return np.moveaxis(out, -1, axis)


@st.composite
def arrays_and_axis(draw):
    """A float32/float64 array of shape (..., n) with at least one axis, and an axis of it."""
    dtype = draw(S.float_dtypes())
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=S.MAX_LENGTH))
    x = draw(S.float_arrays(dtype, shape, bound=20.0))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    return x, axis


@S.QUICK
@given(arrays_and_axis())
def test_softmax_matches_loop_formula(case):
    x, axis = case
    np.testing.assert_allclose(softmax(x, axis=axis), loop_softmax(x, axis), **tolerances(x.dtype))


@S.QUICK
@given(arrays_and_axis())
def test_softmax_keeps_float32_and_float64(case):
    x, axis = case
    assert softmax(x, axis=axis).dtype == x.dtype


@S.QUICK
@given(arrays_and_axis())
def test_softmax_weights_are_nonnegative_and_sum_to_one(case):
    x, axis = case
    weights = softmax(x, axis=axis)
    assert (weights >= 0).all()
    np.testing.assert_allclose(weights.sum(axis=axis, dtype=np.float64), 1.0, **tolerances(x.dtype))


@S.QUICK
@given(arrays_and_axis(), st.data())
def test_softmax_is_invariant_to_adding_a_constant_per_slice(case, data):
    x, axis = case
    shift_shape = list(x.shape)
    shift_shape[axis] = 1  # one constant per slice along `axis`
    shift = data.draw(S.float_arrays(x.dtype, tuple(shift_shape), bound=50.0))
    np.testing.assert_allclose(softmax(x + shift, axis=axis), softmax(x, axis=axis), **tolerances(x.dtype))


def test_integer_scores_are_promoted_to_float64():
    weights = softmax(np.array([[0, 1], [2, 2]]))
    assert weights.dtype == np.float64
    np.testing.assert_allclose(weights[0], [1 / (1 + math.e), math.e / (1 + math.e)], rtol=FLOAT64_RTOL)
    np.testing.assert_allclose(weights[1], [0.5, 0.5], rtol=FLOAT64_RTOL)


@pytest.mark.parametrize("dtype", S.FLOAT_DTYPES)
@pytest.mark.parametrize("centre", [1e4, -1e4])
def test_softmax_of_huge_scores_is_finite_and_correct(dtype, centre):
    # exp(1e4) overflows and exp(-1e4) underflows to 0 (0/0); only differences may matter.
    offsets = [0.0, 1.0, 2.0]
    x = np.array([[centre + o for o in offsets], [centre] * 3], dtype=dtype)  # (2, 3)
    weights = softmax(x, axis=-1)
    assert np.isfinite(weights).all()
    denominator = math.fsum(math.exp(o - 2.0) for o in offsets)
    expected = [[math.exp(o - 2.0) / denominator for o in offsets], [1 / 3] * 3]
    np.testing.assert_allclose(weights, expected, rtol=STABLE_RTOL[dtype])


@pytest.mark.parametrize("dtype", S.FLOAT_DTYPES)
def test_softmax_of_mixed_huge_scores_puts_all_weight_on_the_largest(dtype):
    x = np.array([1e4, -1e4, 0.0], dtype=dtype)
    weights = softmax(x)
    assert np.isfinite(weights).all()
    assert weights[0] == 1.0
    assert weights[1] == 0.0


@st.composite
def scores_with_negative_infinity(draw):
    """(..., n) scores where some entries are -inf and every slice keeps a finite entry."""
    dtype = draw(S.float_dtypes())
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=S.MAX_LENGTH))
    x = draw(S.float_arrays(dtype, shape))
    finite = draw(S.row_masks(shape))
    return np.where(finite, x, -np.inf).astype(dtype), finite


@S.QUICK
@given(scores_with_negative_infinity())
def test_negative_infinity_gets_weight_exactly_zero(case):
    x, finite = case
    weights = softmax(x, axis=-1)
    assert (weights[~finite] == 0.0).all()
    np.testing.assert_allclose(weights, loop_softmax(x, -1), **tolerances(x.dtype))


def test_scalar_input_raises_value_error_naming_the_shape():
    with pytest.raises(ValueError, match=re.escape(str(()))):
        softmax(np.float64(1.0))


@pytest.mark.parametrize("axis", [2, -3])
def test_axis_out_of_range_raises_value_error_naming_the_shape(axis):
    x = np.zeros((2, 3))
    with pytest.raises(ValueError, match=re.escape(str(x.shape))):
        softmax(x, axis=axis)
