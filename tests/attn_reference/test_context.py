"""attention_context: softmax of alignment scores and the weighted sum of encoder states."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attn_reference.context import attention_context
from attn_reference.rnn_scores import dot_score
from tests import strategies as S

SCORE_BOUND = 10.0  # |alignment score|
FLOAT64_RTOL, FLOAT64_ATOL = 1e-10, 1e-12
# float32 weights carry a few ulps (~1e-6 relative) of error from exp and the division, and
# the context sums T <= 5 products of size <= ELEMENT_BOUND.
FLOAT32_RTOL, FLOAT32_ATOL = 1e-5, 1e-5


def tolerances(dtype) -> dict:
    if np.dtype(dtype) == np.float32:
        return {"rtol": FLOAT32_RTOL, "atol": FLOAT32_ATOL}
    return {"rtol": FLOAT64_RTOL, "atol": FLOAT64_ATOL}


def loop_context(scores, H, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """``alpha_j = exp(e_j) / sum_{j' allowed} exp(e_j')`` (0 when masked), ``c = sum_j alpha_j h_j``."""
    batch = np.broadcast_shapes(scores.shape[:-1], H.shape[:-2])
    T, d_h = H.shape[-2:]
    scores = np.broadcast_to(scores, batch + (T,)).astype(np.float64)  # (..., T)
    H = np.broadcast_to(H, batch + (T, d_h)).astype(np.float64)  # (..., T, d_h)
    allowed = np.broadcast_to(True if mask is None else np.asarray(mask) != 0, batch + (T,))  # (..., T)
    alpha = np.zeros(batch + (T,))
    context = np.zeros(batch + (d_h,))
    for b in np.ndindex(batch):
        exps = {j: math.exp(scores[b + (j,)]) for j in range(T) if allowed[b + (j,)]}
        total = math.fsum(exps.values())
        for j, e in exps.items():
            alpha[b + (j,)] = e / total
        for c in range(d_h):
            context[b + (c,)] = math.fsum(alpha[b + (j,)] * H[b + (j, c)] for j in range(T))
    return context, alpha


@dataclass
class Case:
    scores: np.ndarray  # (..., T), its batch dims broadcast to those of H
    H: np.ndarray  # (..., T, d_h)
    mask: np.ndarray | None  # broadcastable to scores.shape, a True in every row


@st.composite
def cases(draw, with_mask: bool = True):
    """Scores whose batch dims broadcast to those of H, and an optional padding mask."""
    dtype = draw(S.float_dtypes())
    h_batch = draw(S.batch_shapes())
    T, d_h = draw(S.lengths()), draw(S.dims())
    scores = draw(S.float_arrays(dtype, draw(S.shapes_broadcasting_to(h_batch)) + (T,), bound=SCORE_BOUND))
    H = draw(S.float_arrays(dtype, h_batch + (T, d_h)))  # (..., T, d_h)
    mask = None
    if with_mask and draw(st.booleans()):
        mask = draw(S.row_masks(draw(S.shapes_broadcasting_to(scores.shape[:-1])) + (T,)))
    return Case(scores, H, mask)


@S.QUICK
@given(cases())
def test_context_matches_loop_formula(case):
    c, alpha = attention_context(case.scores, case.H, case.mask)
    c_loop, alpha_loop = loop_context(case.scores, case.H, case.mask)
    np.testing.assert_allclose(np.broadcast_to(alpha, alpha_loop.shape), alpha_loop, **tolerances(case.H.dtype))
    np.testing.assert_allclose(c, c_loop, **tolerances(case.H.dtype))


@S.QUICK
@given(cases())
def test_context_keeps_float32_and_float64_and_shapes(case):
    c, alpha = attention_context(case.scores, case.H, case.mask)
    assert c.dtype == alpha.dtype == case.H.dtype
    assert c.shape == case.H.shape[:-2] + case.H.shape[-1:]  # (..., d_h)
    assert alpha.shape == case.scores.shape  # (..., T)


@S.QUICK
@given(cases())
def test_context_weights_sum_to_one(case):
    _, alpha = attention_context(case.scores, case.H, case.mask)
    assert (alpha >= 0).all()
    np.testing.assert_allclose(alpha.sum(axis=-1, dtype=np.float64), 1.0, **tolerances(case.H.dtype))


@S.QUICK
@given(cases(with_mask=False), st.data())
def test_padded_source_positions_get_weight_exactly_zero(case, data):
    mask = data.draw(S.row_masks(case.scores.shape))  # (..., T)
    _, alpha = attention_context(case.scores, case.H, mask)
    assert (alpha[~mask] == 0.0).all()


@S.QUICK
@given(cases(with_mask=False), st.data(), S.numeric_mask_dtypes())
def test_numeric_zero_one_mask_gives_the_same_result_as_bool_mask(case, data, mask_dtype):
    mask = data.draw(S.row_masks(case.scores.shape))  # (..., T)
    c_bool, alpha_bool = attention_context(case.scores, case.H, mask)
    c_num, alpha_num = attention_context(case.scores, case.H, mask.astype(mask_dtype))
    np.testing.assert_array_equal(c_num, c_bool)
    np.testing.assert_array_equal(alpha_num, alpha_bool)


@S.QUICK
@given(cases(with_mask=False), st.data())
def test_one_padding_mask_of_shape_T_applies_to_every_batch_element(case, data):
    T = case.H.shape[-2]
    mask = data.draw(S.row_masks((T,)))  # (T,)
    _, alpha = attention_context(case.scores, case.H, mask)
    _, alpha_full = attention_context(case.scores, case.H, np.broadcast_to(mask, case.scores.shape).copy())
    np.testing.assert_array_equal(alpha, alpha_full)


@S.QUICK
@given(cases(), st.data())
def test_permuting_source_positions_leaves_the_context_unchanged(case, data):
    T = case.H.shape[-2]
    order = np.array(data.draw(st.permutations(range(T))))
    mask = None if case.mask is None else case.mask[..., order]
    c, alpha = attention_context(case.scores, case.H, case.mask)
    c_perm, alpha_perm = attention_context(case.scores[..., order], case.H[..., order, :], mask)
    np.testing.assert_allclose(c_perm, c, **tolerances(case.H.dtype))
    np.testing.assert_allclose(alpha_perm, alpha[..., order], **tolerances(case.H.dtype))


def test_context_of_dot_scores_for_one_hot_states():
    # H = eye(3): decoder state equal to h_0 scores [1, 0, 0], so alpha = softmax([1, 0, 0]).
    H = np.eye(3)
    c, alpha = attention_context(dot_score(H[0], H), H)
    first, other = math.e / (math.e + 2), 1 / (math.e + 2)
    np.testing.assert_allclose(alpha, [first, other, other], rtol=FLOAT64_RTOL)
    np.testing.assert_allclose(c, [first, other, other], rtol=FLOAT64_RTOL)


def test_scores_and_states_disagreeing_on_T_raise_value_error_naming_both_shapes():
    scores, H = np.zeros((2, 4)), np.zeros((2, 5, 3))  # T 4 vs 5
    with pytest.raises(ValueError, match=re.escape(str(scores.shape))) as error:
        attention_context(scores, H)
    assert str(H.shape) in str(error.value)


def test_scores_with_non_broadcastable_batch_dims_raise_value_error_naming_the_shapes():
    scores, H = np.zeros((3, 5)), np.zeros((2, 5, 4))  # batch 3 vs 2
    with pytest.raises(ValueError, match=re.escape(str(scores.shape))) as error:
        attention_context(scores, H)
    assert str(H.shape) in str(error.value)


def test_several_decoder_steps_share_one_set_of_encoder_states():
    rng = np.random.default_rng(3)
    scores, H = rng.standard_normal((4, 6)), rng.standard_normal((6, 3))  # (T_y, T_x), (T_x, d_h)
    mask = np.array([1, 1, 0, 1, 1, 0], dtype=bool)
    c, alpha = attention_context(scores, H, mask)
    expected_c, expected_alpha = loop_context(scores, H, mask)
    assert c.shape == (4, 3) and alpha.shape == (4, 6)
    np.testing.assert_allclose(c, expected_c, rtol=FLOAT64_RTOL, atol=FLOAT64_ATOL)
    np.testing.assert_allclose(alpha, expected_alpha, rtol=FLOAT64_RTOL, atol=FLOAT64_ATOL)


def test_non_broadcastable_mask_raises_value_error_naming_its_shape():
    scores, H = np.zeros((2, 5)), np.zeros((2, 5, 4))
    mask = np.ones((2, 4), dtype=bool)  # T of 4 instead of 5
    with pytest.raises(ValueError, match=re.escape(str(mask.shape))):
        attention_context(scores, H, mask)


def test_states_without_a_time_axis_raise_value_error_naming_the_shape():
    with pytest.raises(ValueError, match=re.escape(str((5,)))):
        attention_context(np.zeros(5), np.zeros(5))
