"""scaled_dot_product_attention: against a loop over indices, its properties, bad shapes."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attn_reference.masks import causal_mask
from attn_reference.scaled_attention import scaled_dot_product_attention
from tests import strategies as S

FLOAT64_RTOL, FLOAT64_ATOL = 1e-10, 1e-12
# float32 scores carry ~d_k * |q||k| * 6e-8 absolute error; exp turns it into relative
# weight error of the same size (~1e-6 for the bounded inputs), then A V sums L_k terms.
FLOAT32_RTOL, FLOAT32_ATOL = 1e-4, 1e-5
WORKED_EXAMPLE_DECIMALS = 4


def tolerances(dtype) -> dict:
    if np.dtype(dtype) == np.float32:
        return {"rtol": FLOAT32_RTOL, "atol": FLOAT32_ATOL}
    return {"rtol": FLOAT64_RTOL, "atol": FLOAT64_ATOL}


def loop_attention(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """The chapter's formula index by index, in Python floats.

    ``a_ij = exp(q_i . k_j / sqrt(d_k)) / sum_{j' allowed} exp(q_i . k_j' / sqrt(d_k))`` over the
    allowed keys (disallowed keys get 0), and ``z_i = sum_j a_ij v_j``.
    """
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    L_q, d_k = Q.shape[-2:]
    L_k, d_v = V.shape[-2:]
    Q = np.broadcast_to(Q, batch + (L_q, d_k)).astype(np.float64)  # (..., L_q, d_k)
    K = np.broadcast_to(K, batch + (L_k, d_k)).astype(np.float64)  # (..., L_k, d_k)
    V = np.broadcast_to(V, batch + (L_k, d_v)).astype(np.float64)  # (..., L_k, d_v)
    allowed = np.broadcast_to(True if mask is None else np.asarray(mask) != 0, batch + (L_q, L_k))
    Z = np.zeros(batch + (L_q, d_v))
    A = np.zeros(batch + (L_q, L_k))
    for b in np.ndindex(batch):
        for i in range(L_q):
            exps = {}
            for j in range(L_k):
                if allowed[b + (i, j)]:
                    score = math.fsum(Q[b + (i, c)] * K[b + (j, c)] for c in range(d_k)) / math.sqrt(d_k)
                    exps[j] = math.exp(score)
            total = math.fsum(exps.values())
            for j, e in exps.items():
                A[b + (i, j)] = e / total
            for c in range(d_v):
                Z[b + (i, c)] = math.fsum(A[b + (i, j)] * V[b + (j, c)] for j in range(L_k))
    return Z, A


@dataclass
class Problem:
    Q: np.ndarray  # (..., L_q, d_k)
    K: np.ndarray  # (..., L_k, d_k)
    V: np.ndarray  # (..., L_k, d_v)
    mask: np.ndarray | None  # broadcastable to (..., L_q, L_k), a True in every row


@st.composite
def problems(draw, with_mask: bool = True):
    """Q, K, V with broadcastable batch dims, and optionally a broadcastable mask.

    K and V share their batch shape (keys and values come from one sequence); Q's batch
    dims broadcast against it.
    """
    dtype = draw(S.float_dtypes())
    q_batch, k_batch = draw(S.broadcastable_batch_shapes(2))
    v_batch = k_batch
    L_q, L_k, d_k, d_v = (draw(S.lengths()), draw(S.lengths()), draw(S.dims()), draw(S.dims()))
    Q = draw(S.float_arrays(dtype, q_batch + (L_q, d_k)))
    K = draw(S.float_arrays(dtype, k_batch + (L_k, d_k)))
    V = draw(S.float_arrays(dtype, v_batch + (L_k, d_v)))
    mask = None
    if with_mask and draw(st.booleans()):
        batch = np.broadcast_shapes(q_batch, k_batch, v_batch)
        mask = draw(S.mask_shapes(batch, L_q, L_k).flatmap(S.row_masks))
    return Problem(Q, K, V, mask)


@S.QUICK
@given(problems())
def test_attention_matches_loop_formula(p):
    Z, A = scaled_dot_product_attention(p.Q, p.K, p.V, p.mask)
    Z_loop, A_loop = loop_attention(p.Q, p.K, p.V, p.mask)
    np.testing.assert_allclose(A, A_loop, **tolerances(p.Q.dtype))
    np.testing.assert_allclose(Z, Z_loop, **tolerances(p.Q.dtype))


@S.QUICK
@given(problems())
def test_attention_keeps_float32_and_float64_and_shapes(p):
    Z, A = scaled_dot_product_attention(p.Q, p.K, p.V, p.mask)
    batch = np.broadcast_shapes(p.Q.shape[:-2], p.K.shape[:-2], p.V.shape[:-2])
    assert Z.dtype == A.dtype == p.Q.dtype
    assert Z.shape == batch + (p.Q.shape[-2], p.V.shape[-1])  # (..., L_q, d_v)
    assert A.shape == batch + (p.Q.shape[-2], p.K.shape[-2])  # (..., L_q, L_k)


@S.QUICK
@given(problems())
def test_attention_weights_rows_sum_to_one(p):
    _, A = scaled_dot_product_attention(p.Q, p.K, p.V, p.mask)
    assert (A >= 0).all()
    np.testing.assert_allclose(A.sum(axis=-1, dtype=np.float64), 1.0, **tolerances(p.Q.dtype))


@S.QUICK
@given(problems(with_mask=False), st.data())
def test_masked_keys_get_weight_exactly_zero(p, data):
    batch = np.broadcast_shapes(p.Q.shape[:-2], p.K.shape[:-2], p.V.shape[:-2])
    full_shape = batch + (p.Q.shape[-2], p.K.shape[-2])  # (..., L_q, L_k)
    mask = data.draw(S.row_masks(full_shape))
    _, A = scaled_dot_product_attention(p.Q, p.K, p.V, mask)
    assert (A[~mask] == 0.0).all()


@S.QUICK
@given(problems(), st.data())
def test_permuting_keys_and_values_together_leaves_Z_unchanged(p, data):
    L_k = p.K.shape[-2]
    order = np.array(data.draw(st.permutations(range(L_k))))
    mask = None if p.mask is None else p.mask[..., order]  # the key axis is the last one
    Z, A = scaled_dot_product_attention(p.Q, p.K, p.V, p.mask)
    Z_perm, A_perm = scaled_dot_product_attention(p.Q, p.K[..., order, :], p.V[..., order, :], mask)
    np.testing.assert_allclose(Z_perm, Z, **tolerances(p.Q.dtype))
    np.testing.assert_allclose(A_perm, A[..., order], **tolerances(p.Q.dtype))


@S.QUICK
@given(problems(with_mask=False), st.data(), S.numeric_mask_dtypes())
def test_numeric_zero_one_mask_gives_the_same_result_as_bool_mask(p, data, mask_dtype):
    batch = np.broadcast_shapes(p.Q.shape[:-2], p.K.shape[:-2], p.V.shape[:-2])
    mask = data.draw(S.mask_shapes(batch, p.Q.shape[-2], p.K.shape[-2]).flatmap(S.row_masks))
    Z_bool, A_bool = scaled_dot_product_attention(p.Q, p.K, p.V, mask)
    Z_num, A_num = scaled_dot_product_attention(p.Q, p.K, p.V, mask.astype(mask_dtype))
    np.testing.assert_array_equal(Z_num, Z_bool)
    np.testing.assert_array_equal(A_num, A_bool)


@S.QUICK
@given(problems(with_mask=False), st.data())
def test_shared_L_q_by_L_k_mask_applies_to_every_batch_element(p, data):
    L_q, L_k = p.Q.shape[-2], p.K.shape[-2]
    batch = np.broadcast_shapes(p.Q.shape[:-2], p.K.shape[:-2], p.V.shape[:-2])
    mask = data.draw(S.row_masks((L_q, L_k)))  # (L_q, L_k), no batch dims
    Z, A = scaled_dot_product_attention(p.Q, p.K, p.V, mask)
    Q = np.broadcast_to(p.Q, batch + p.Q.shape[-2:])
    K = np.broadcast_to(p.K, batch + p.K.shape[-2:])
    V = np.broadcast_to(p.V, batch + p.V.shape[-2:])
    for b in np.ndindex(batch):
        Z_b, A_b = scaled_dot_product_attention(Q[b], K[b], V[b], mask)
        np.testing.assert_allclose(Z[b], Z_b, **tolerances(p.Q.dtype))
        np.testing.assert_allclose(A[b], A_b, **tolerances(p.Q.dtype))


@S.QUICK
@given(problems(with_mask=False), st.data())
def test_padding_mask_with_a_singleton_query_axis_equals_the_full_mask(p, data):
    L_q, L_k = p.Q.shape[-2], p.K.shape[-2]
    batch = np.broadcast_shapes(p.Q.shape[:-2], p.K.shape[:-2], p.V.shape[:-2])
    padding = data.draw(S.row_masks(batch + (1, L_k)))  # (..., 1, L_k): same keys for every query
    full = np.broadcast_to(padding, batch + (L_q, L_k)).copy()  # (..., L_q, L_k)
    Z_pad, A_pad = scaled_dot_product_attention(p.Q, p.K, p.V, padding)
    Z_full, A_full = scaled_dot_product_attention(p.Q, p.K, p.V, full)
    np.testing.assert_array_equal(Z_pad, Z_full)
    np.testing.assert_array_equal(A_pad, A_full)
    assert (A_pad[~full] == 0.0).all()


@st.composite
def causal_self_attention_cases(draw):
    """Tokens X (..., n, d_model), projections (d_model, d_k|d_v), a position i and new later tokens."""
    dtype = draw(S.float_dtypes())
    batch = draw(S.batch_shapes())
    n, d_model, d_k, d_v = draw(st.integers(2, S.MAX_LENGTH)), draw(S.dims()), draw(S.dims()), draw(S.dims())
    X = draw(S.float_arrays(dtype, batch + (n, d_model)))
    W_q, W_k = draw(S.float_arrays(dtype, (d_model, d_k))), draw(S.float_arrays(dtype, (d_model, d_k)))
    W_v = draw(S.float_arrays(dtype, (d_model, d_v)))
    i = draw(st.integers(0, n - 2))
    later = draw(S.float_arrays(dtype, batch + (n - i - 1, d_model)))
    return X, (W_q, W_k, W_v), i, later


@S.QUICK
@given(causal_self_attention_cases())
def test_causal_attention_at_position_i_ignores_later_tokens(case):
    X, (W_q, W_k, W_v), i, later = case
    X_changed = X.copy()
    X_changed[..., i + 1 :, :] = later  # tokens after position i
    mask = causal_mask(X.shape[-2])
    Z, _ = scaled_dot_product_attention(X @ W_q, X @ W_k, X @ W_v, mask)
    Z_changed, _ = scaled_dot_product_attention(X_changed @ W_q, X_changed @ W_k, X_changed @ W_v, mask)
    np.testing.assert_array_equal(Z_changed[..., : i + 1, :], Z[..., : i + 1, :])


def test_worked_example_weights_to_four_decimals():
    # 3 tokens, X = eye(3, 4), identity projections: Q = K = V = X, so Q K^T / sqrt(4) = I / 2
    # and every row of scores is a permutation of [0.5, 0, 0].
    X = np.eye(3, 4)
    Z, A = scaled_dot_product_attention(X, X, X)
    diagonal = math.exp(0.5) / (math.exp(0.5) + 2)
    off_diagonal = 1 / (math.exp(0.5) + 2)
    assert round(diagonal, WORKED_EXAMPLE_DECIMALS) == 0.4519
    assert round(off_diagonal, WORKED_EXAMPLE_DECIMALS) == 0.2741
    expected_A = np.full((3, 3), off_diagonal) + np.eye(3) * (diagonal - off_diagonal)
    np.testing.assert_allclose(A, expected_A, rtol=FLOAT64_RTOL, atol=FLOAT64_ATOL)
    np.testing.assert_array_equal(
        np.round(A, WORKED_EXAMPLE_DECIMALS), np.round(expected_A, WORKED_EXAMPLE_DECIMALS)
    )
    # Z = A V with V = eye(3, 4): the weights, padded with a zero column.
    expected_Z = np.hstack([expected_A, np.zeros((3, 1))])
    np.testing.assert_allclose(Z, expected_Z, rtol=FLOAT64_RTOL, atol=FLOAT64_ATOL)


def test_mismatched_d_k_raises_value_error_naming_both_shapes():
    Q, K, V = np.zeros((2, 3, 4)), np.zeros((2, 5, 6)), np.zeros((2, 5, 4))  # d_k 4 vs 6
    with pytest.raises(ValueError, match=re.escape(str(Q.shape))) as error:
        scaled_dot_product_attention(Q, K, V)
    assert str(K.shape) in str(error.value)


def test_mismatched_L_k_between_K_and_V_raises_value_error_naming_both_shapes():
    Q, K, V = np.zeros((3, 4)), np.zeros((5, 4)), np.zeros((6, 2))  # L_k 5 vs 6
    with pytest.raises(ValueError, match=re.escape(str(K.shape))) as error:
        scaled_dot_product_attention(Q, K, V)
    assert str(V.shape) in str(error.value)


def test_non_broadcastable_batch_dims_raise_value_error_naming_the_shapes():
    Q, K, V = np.zeros((2, 3, 4)), np.zeros((3, 5, 4)), np.zeros((3, 5, 4))  # batch 2 vs 3
    with pytest.raises(ValueError, match=re.escape(str(Q.shape))) as error:
        scaled_dot_product_attention(Q, K, V)
    assert str(K.shape) in str(error.value)


def test_non_broadcastable_mask_raises_value_error_naming_its_shape():
    Q, K, V = np.zeros((2, 3, 4)), np.zeros((2, 5, 4)), np.zeros((2, 5, 4))
    mask = np.ones((3, 4), dtype=bool)  # L_k of 4, keys are 5
    with pytest.raises(ValueError, match=re.escape(str(mask.shape))) as error:
        scaled_dot_product_attention(Q, K, V, mask)
    assert str((2, 3, 5)) in str(error.value)  # the (..., L_q, L_k) it must broadcast to


@pytest.mark.parametrize("name", ["Q", "K", "V"])
def test_one_dimensional_input_raises_value_error_naming_it(name):
    arrays = {"Q": np.zeros((3, 4)), "K": np.zeros((5, 4)), "V": np.zeros((5, 2))}
    arrays[name] = np.zeros(4)
    with pytest.raises(ValueError, match=re.escape(f"{name} must have at least 2 dimensions, got shape (4,)")):
        scaled_dot_product_attention(**arrays)
