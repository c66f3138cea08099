"""Bahdanau and Luong alignment scores: against loops over positions, and bad shapes."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attn_reference.rnn_scores import additive_score, concat_score, dot_score, general_score
from tests import strategies as S

STATE_BOUND = 2.0  # |entries| of s and H
WEIGHT_BOUND = 1.0  # |entries| of W_a, U_a, v_a
FLOAT64_RTOL, FLOAT64_ATOL = 1e-10, 1e-12
# A score sums up to d_s * d_h = 36 products of size <= STATE_BOUND^2 * WEIGHT_BOUND = 4
# (general score); float32 rounds each of the ~36 operations by <= 2^-24 of a partial sum
# <= 144, so the absolute error stays below ~3e-4.
FLOAT32_RTOL, FLOAT32_ATOL = 1e-5, 5e-4


def tolerances(dtype) -> dict:
    if np.dtype(dtype) == np.float32:
        return {"rtol": FLOAT32_RTOL, "atol": FLOAT32_ATOL}
    return {"rtol": FLOAT64_RTOL, "atol": FLOAT64_ATOL}


def broadcast_states(s, H):
    """Broadcast s (..., d_s) and H (..., T, d_h) to one batch shape, as float64."""
    batch = np.broadcast_shapes(s.shape[:-1], H.shape[:-2])
    s = np.broadcast_to(s, batch + s.shape[-1:]).astype(np.float64)
    H = np.broadcast_to(H, batch + H.shape[-2:]).astype(np.float64)
    return batch, s, H


def loop_additive(s, H, W_a, U_a, v_a) -> np.ndarray:
    """``e_j = sum_a v_a[a] tanh(sum_m W_a[a, m] s[m] + sum_n U_a[a, n] h_j[n])``."""
    batch, s, H = broadcast_states(s, H)
    T, d_a = H.shape[-2], len(v_a)
    e = np.zeros(batch + (T,))
    for b in np.ndindex(batch):
        for j in range(T):
            hidden = []
            for a in range(d_a):
                pre = math.fsum(
                    [float(W_a[a, m]) * s[b + (m,)] for m in range(s.shape[-1])]
                    + [float(U_a[a, n]) * H[b + (j, n)] for n in range(H.shape[-1])]
                )
                hidden.append(float(v_a[a]) * math.tanh(pre))
            e[b + (j,)] = math.fsum(hidden)
    return e


def loop_dot(s, H) -> np.ndarray:
    """``e_j = sum_m s[m] h_j[m]``."""
    batch, s, H = broadcast_states(s, H)
    e = np.zeros(batch + H.shape[-2:-1])
    for b in np.ndindex(batch):
        for j in range(H.shape[-2]):
            e[b + (j,)] = math.fsum(s[b + (m,)] * H[b + (j, m)] for m in range(s.shape[-1]))
    return e


def loop_general(s, H, W_a) -> np.ndarray:
    """``e_j = sum_m sum_n s[m] W_a[m, n] h_j[n]``."""
    batch, s, H = broadcast_states(s, H)
    e = np.zeros(batch + H.shape[-2:-1])
    for b in np.ndindex(batch):
        for j in range(H.shape[-2]):
            e[b + (j,)] = math.fsum(
                s[b + (m,)] * float(W_a[m, n]) * H[b + (j, n)]
                for m in range(s.shape[-1])
                for n in range(H.shape[-1])
            )
    return e


def loop_concat(s, H, W_a, v_a) -> np.ndarray:
    """``e_j = sum_a v_a[a] tanh(sum_c W_a[a, c] x_j[c])`` with ``x_j = [s; h_j]``."""
    batch, s, H = broadcast_states(s, H)
    e = np.zeros(batch + H.shape[-2:-1])
    for b in np.ndindex(batch):
        for j in range(H.shape[-2]):
            x = list(s[b]) + list(H[b + (j,)])  # (d_s + d_h,)
            e[b + (j,)] = math.fsum(
                float(v_a[a]) * math.tanh(math.fsum(float(W_a[a, c]) * x[c] for c in range(len(x))))
                for a in range(len(v_a))
            )
    return e


@dataclass
class Case:
    s: np.ndarray  # (..., d_s)
    H: np.ndarray  # (..., T, d_h)
    W_a: np.ndarray  # (d_a, d_s)
    U_a: np.ndarray  # (d_a, d_h)
    v_a: np.ndarray  # (d_a,)
    W_general: np.ndarray  # (d_s, d_h)
    W_concat: np.ndarray  # (d_a, d_s + d_h)
    H_same_size: np.ndarray  # (..., T, d_s), for the dot score


@st.composite
def cases(draw):
    """Decoder state, encoder states with broadcastable batch dims, and every score's weights."""
    dtype = draw(S.float_dtypes())
    s_batch, h_batch = draw(S.broadcastable_batch_shapes(2))
    T, d_s, d_h, d_a = draw(S.lengths()), draw(S.dims()), draw(S.dims()), draw(S.dims())

    def states(shape):
        return draw(S.float_arrays(dtype, shape, bound=STATE_BOUND))

    def weights(shape):
        return draw(S.float_arrays(dtype, shape, bound=WEIGHT_BOUND))

    return Case(
        s=states(s_batch + (d_s,)),
        H=states(h_batch + (T, d_h)),
        W_a=weights((d_a, d_s)),
        U_a=weights((d_a, d_h)),
        v_a=weights((d_a,)),
        W_general=weights((d_s, d_h)),
        W_concat=weights((d_a, d_s + d_h)),
        H_same_size=states(h_batch + (T, d_s)),
    )


def expected_shape(s, H) -> tuple:
    return np.broadcast_shapes(s.shape[:-1], H.shape[:-2]) + (H.shape[-2],)  # (..., T)


@S.QUICK
@given(cases())
def test_additive_score_matches_loop(c):
    e = additive_score(c.s, c.H, c.W_a, c.U_a, c.v_a)
    assert e.dtype == c.s.dtype
    assert e.shape == expected_shape(c.s, c.H)
    np.testing.assert_allclose(e, loop_additive(c.s, c.H, c.W_a, c.U_a, c.v_a), **tolerances(c.s.dtype))


@S.QUICK
@given(cases())
def test_dot_score_matches_loop(c):
    e = dot_score(c.s, c.H_same_size)
    assert e.dtype == c.s.dtype
    assert e.shape == expected_shape(c.s, c.H_same_size)
    np.testing.assert_allclose(e, loop_dot(c.s, c.H_same_size), **tolerances(c.s.dtype))


@S.QUICK
@given(cases())
def test_general_score_matches_loop(c):
    e = general_score(c.s, c.H, c.W_general)
    assert e.dtype == c.s.dtype
    assert e.shape == expected_shape(c.s, c.H)
    np.testing.assert_allclose(e, loop_general(c.s, c.H, c.W_general), **tolerances(c.s.dtype))


@S.QUICK
@given(cases())
def test_concat_score_matches_loop(c):
    e = concat_score(c.s, c.H, c.W_concat, c.v_a)
    assert e.dtype == c.s.dtype
    assert e.shape == expected_shape(c.s, c.H)
    np.testing.assert_allclose(e, loop_concat(c.s, c.H, c.W_concat, c.v_a), **tolerances(c.s.dtype))


@S.QUICK
@given(cases())
def test_general_score_with_identity_weight_is_the_dot_score(c):
    d = c.s.shape[-1]
    identity = np.eye(d, dtype=c.s.dtype)
    np.testing.assert_allclose(
        general_score(c.s, c.H_same_size, identity), dot_score(c.s, c.H_same_size), **tolerances(c.s.dtype)
    )


@S.QUICK
@given(cases())
def test_concat_score_is_additive_score_with_split_weight(c):
    d_s = c.s.shape[-1]
    np.testing.assert_allclose(
        concat_score(c.s, c.H, c.W_concat, c.v_a),
        additive_score(c.s, c.H, c.W_concat[:, :d_s], c.W_concat[:, d_s:], c.v_a),
        **tolerances(c.s.dtype),
    )


def test_integer_inputs_give_float64_scores():
    assert dot_score(np.array([1, 2]), np.array([[3, 4], [5, 6]])).dtype == np.float64


# Shapes below: s (d_s=3,), H (T=5, d_h=4), d_a = 2.
S_STATE, H_STATES = np.zeros(3), np.zeros((5, 4))


@pytest.mark.parametrize(
    ("W_a", "U_a", "bad_name"),
    [
        (np.zeros((2, 4)), np.zeros((2, 4)), "W_a"),
        (np.zeros((2, 3)), np.zeros((2, 3)), "U_a"),
        (np.zeros((3, 3)), np.zeros((2, 4)), "W_a"),
    ],
)
def test_additive_score_with_wrong_weight_shape_raises_value_error_naming_both_shapes(W_a, U_a, bad_name):
    bad = {"W_a": W_a, "U_a": U_a}[bad_name]
    expected = {"W_a": (2, 3), "U_a": (2, 4)}[bad_name]  # (d_a, d_s), (d_a, d_h)
    with pytest.raises(ValueError, match=re.escape(str(bad.shape))) as error:
        additive_score(S_STATE, H_STATES, W_a, U_a, np.zeros(2))
    assert bad_name in str(error.value)
    assert str(expected) in str(error.value)


@pytest.mark.parametrize("v_a_shape", [(2, 1), (1, 2), ()])
def test_additive_score_with_non_vector_v_a_raises_value_error_naming_its_shape(v_a_shape):
    v_a = np.zeros(v_a_shape)
    with pytest.raises(ValueError, match=re.escape(str(v_a_shape))):
        additive_score(S_STATE, H_STATES, np.zeros((2, 3)), np.zeros((2, 4)), v_a)


@pytest.mark.parametrize("v_a_shape", [(2, 1), (1, 2), ()])
def test_concat_score_with_non_vector_v_a_raises_value_error_naming_its_shape(v_a_shape):
    v_a = np.zeros(v_a_shape)
    with pytest.raises(ValueError, match=re.escape(str(v_a_shape))):
        concat_score(S_STATE, H_STATES, np.zeros((2, 7)), v_a)


def test_dot_score_with_different_state_sizes_raises_value_error_naming_both_shapes():
    with pytest.raises(ValueError, match=re.escape(str(S_STATE.shape))) as error:
        dot_score(S_STATE, H_STATES)
    assert str(H_STATES.shape) in str(error.value)


@pytest.mark.parametrize("W_shape", [(4, 3), (3, 5), (3,)])
def test_general_score_with_wrong_W_a_shape_raises_value_error_naming_both_shapes(W_shape):
    with pytest.raises(ValueError, match=re.escape(str(W_shape))) as error:
        general_score(S_STATE, H_STATES, np.zeros(W_shape))
    assert str((3, 4)) in str(error.value)  # (d_s, d_h)


@pytest.mark.parametrize("W_shape", [(2, 6), (3, 7), (2, 3, 4)])
def test_concat_score_with_wrong_W_a_shape_raises_value_error_naming_both_shapes(W_shape):
    with pytest.raises(ValueError, match=re.escape(str(W_shape))) as error:
        concat_score(S_STATE, H_STATES, np.zeros(W_shape), np.zeros(2))
    assert str((2, 7)) in str(error.value)  # (d_a, d_s + d_h)


def test_non_broadcastable_batch_dims_raise_value_error_naming_both_shapes():
    s, H = np.zeros((2, 4)), np.zeros((3, 5, 4))  # batch 2 vs 3
    with pytest.raises(ValueError, match=re.escape(str(s.shape))) as error:
        dot_score(s, H)
    assert str(H.shape) in str(error.value)


def test_encoder_states_without_a_time_axis_raise_value_error_naming_the_shape():
    with pytest.raises(ValueError, match=re.escape(str((4,)))):
        dot_score(np.zeros(4), np.zeros(4))
