"""multi_head_attention: against a loop over heads and indices, its properties, bad shapes."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attn_reference.masks import causal_mask
from attn_reference.multi_head import multi_head_attention
from attn_reference.scaled_attention import scaled_dot_product_attention
from tests import strategies as S

MAX_HEADS = 4
MAX_D_HEAD = 2
TOKEN_BOUND = 1.0  # |entries| of X_q, X_kv
WEIGHT_BOUND = 0.5  # |entries| of W_q, W_k, W_v, W_o
FLOAT64_RTOL, FLOAT64_ATOL = 1e-10, 1e-12
# Three chained float32 products: projections (|.| <= 4), scores (|.| <= 16 * d_head / sqrt(d_head)),
# whose ~1e-5 absolute error becomes relative weight error, then A V and the output projection.
FLOAT32_RTOL, FLOAT32_ATOL = 1e-4, 1e-4


def tolerances(dtype) -> dict:
    if np.dtype(dtype) == np.float32:
        return {"rtol": FLOAT32_RTOL, "atol": FLOAT32_ATOL}
    return {"rtol": FLOAT64_RTOL, "atol": FLOAT64_ATOL}


def loop_multi_head(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    """``Y = Concat(head_1..head_h) W_o``, ``head_h = softmax(Q_h K_h^T / sqrt(d_head)) V_h``.

    ``Q = X_q W_q``, ``K = X_kv W_k``, ``V = X_kv W_v``; head h owns columns
    ``h * d_head .. (h + 1) * d_head - 1``. Disallowed keys get weight 0.
    """
    batch = np.broadcast_shapes(X_q.shape[:-2], X_kv.shape[:-2])
    n_q, d_model = X_q.shape[-2:]
    n_kv = X_kv.shape[-2]
    d_head = d_model // num_heads
    X_q = np.broadcast_to(X_q, batch + (n_q, d_model)).astype(np.float64)
    X_kv = np.broadcast_to(X_kv, batch + (n_kv, d_model)).astype(np.float64)
    W_q, W_k, W_v, W_o = (np.asarray(W, dtype=np.float64) for W in (W_q, W_k, W_v, W_o))
    shape = batch + (n_q, n_kv)
    allowed = np.broadcast_to(True if mask is None else np.asarray(mask) != 0, shape)  # (..., n_q, n_kv)

    def project(row, W):  # (d_model,) @ (d_model, d_model)
        return [math.fsum(row[m] * W[m, c] for m in range(d_model)) for c in range(d_model)]

    Y = np.zeros(batch + (n_q, d_model))
    A = np.zeros(batch + (num_heads, n_q, n_kv))
    for b in np.ndindex(batch):
        Q = [project(X_q[b + (i,)], W_q) for i in range(n_q)]
        K = [project(X_kv[b + (j,)], W_k) for j in range(n_kv)]
        V = [project(X_kv[b + (j,)], W_v) for j in range(n_kv)]
        concat = [[0.0] * d_model for _ in range(n_q)]
        for h in range(num_heads):
            columns = range(h * d_head, (h + 1) * d_head)
            for i in range(n_q):
                exps = {
                    j: math.exp(math.fsum(Q[i][c] * K[j][c] for c in columns) / math.sqrt(d_head))
                    for j in range(n_kv)
                    if allowed[b + (i, j)]
                }
                total = math.fsum(exps.values())
                for j, e in exps.items():
                    A[b + (h, i, j)] = e / total
                for c in columns:
                    concat[i][c] = math.fsum(A[b + (h, i, j)] * V[j][c] for j in range(n_kv))
        for i in range(n_q):
            for c in range(d_model):
                Y[b + (i, c)] = math.fsum(concat[i][m] * W_o[m, c] for m in range(d_model))
    return Y, A


@dataclass
class Case:
    X_q: np.ndarray  # (..., n_q, d_model)
    X_kv: np.ndarray  # (..., n_kv, d_model)
    weights: tuple  # W_q, W_k, W_v, W_o, each (d_model, d_model)
    num_heads: int
    mask: np.ndarray | None  # broadcastable to (..., n_q, n_kv), a True in every row

    @property
    def batch(self) -> tuple:
        return np.broadcast_shapes(self.X_q.shape[:-2], self.X_kv.shape[:-2])

    @property
    def n_q(self) -> int:
        return self.X_q.shape[-2]

    @property
    def n_kv(self) -> int:
        return self.X_kv.shape[-2]


@st.composite
def cases(draw, with_mask: bool = True, self_attention: bool = False):
    """Inputs of cross- (or self-) attention with broadcastable batch dims and an optional mask."""
    dtype = draw(S.float_dtypes())
    num_heads, d_head = draw(st.integers(1, MAX_HEADS)), draw(st.integers(1, MAX_D_HEAD))
    d_model = num_heads * d_head
    q_batch, kv_batch = draw(S.broadcastable_batch_shapes(2))
    n_q = draw(S.lengths())
    X_q = draw(S.float_arrays(dtype, q_batch + (n_q, d_model), bound=TOKEN_BOUND))
    X_kv = X_q
    if not self_attention:
        X_kv = draw(S.float_arrays(dtype, kv_batch + (draw(S.lengths()), d_model), bound=TOKEN_BOUND))
    weights = tuple(draw(S.float_arrays(dtype, (d_model, d_model), bound=WEIGHT_BOUND)) for _ in range(4))
    mask = None
    if with_mask and draw(st.booleans()):
        batch = np.broadcast_shapes(X_q.shape[:-2], X_kv.shape[:-2])
        mask = draw(S.mask_shapes(batch, n_q, X_kv.shape[-2]).flatmap(S.row_masks))
    return Case(X_q, X_kv, weights, num_heads, mask)


CASE_MASK = object()  # run() default: the case's own mask


def run(case: Case, mask=CASE_MASK, **changes):
    """multi_head_attention on the case, optionally with another mask or other X_q / X_kv."""
    arguments = {"X_q": case.X_q, "X_kv": case.X_kv, **changes}
    mask = case.mask if mask is CASE_MASK else mask
    return multi_head_attention(arguments["X_q"], arguments["X_kv"], *case.weights, case.num_heads, mask)


@S.QUICK
@given(cases())
def test_multi_head_attention_matches_loop_formula(case):
    Y, A = run(case)
    Y_loop, A_loop = loop_multi_head(case.X_q, case.X_kv, *case.weights, case.num_heads, case.mask)
    np.testing.assert_allclose(A, A_loop, **tolerances(case.X_q.dtype))
    np.testing.assert_allclose(Y, Y_loop, **tolerances(case.X_q.dtype))


@S.QUICK
@given(cases())
def test_multi_head_attention_keeps_float32_and_float64_and_shapes(case):
    Y, A = run(case)
    assert Y.dtype == A.dtype == case.X_q.dtype
    assert Y.shape == case.batch + case.X_q.shape[-2:]  # (..., n_q, d_model)
    assert A.shape == case.batch + (case.num_heads, case.n_q, case.n_kv)  # (..., h, n_q, n_kv)


@S.QUICK
@given(cases())
def test_every_heads_weight_rows_sum_to_one(case):
    _, A = run(case)
    assert (A >= 0).all()
    np.testing.assert_allclose(A.sum(axis=-1, dtype=np.float64), 1.0, **tolerances(case.X_q.dtype))


@S.QUICK
@given(cases(with_mask=False), st.data())
def test_masked_keys_get_weight_exactly_zero_in_every_head(case, data):
    mask = data.draw(S.row_masks(case.batch + (case.n_q, case.n_kv)))  # (..., n_q, n_kv)
    _, A = run(case, mask=mask)
    head_mask = np.broadcast_to(mask[..., None, :, :], A.shape)  # (..., h, n_q, n_kv)
    assert (A[~head_mask] == 0.0).all()


@S.QUICK
@given(cases(with_mask=False))
def test_one_head_equals_projected_single_head_attention(case):
    W_q, W_k, W_v, W_o = case.weights
    d_model = case.X_q.shape[-1]
    one_head = Case(case.X_q, case.X_kv, case.weights, 1, None)
    Y, A = run(one_head)
    Z, weights = scaled_dot_product_attention(case.X_q @ W_q, case.X_kv @ W_k, case.X_kv @ W_v)
    assert A.shape[-3] == 1
    np.testing.assert_allclose(A[..., 0, :, :], weights, **tolerances(case.X_q.dtype))
    np.testing.assert_allclose(Y, Z @ W_o, **tolerances(case.X_q.dtype))
    assert Y.shape[-1] == d_model


@S.QUICK
@given(cases(with_mask=False, self_attention=True), st.data())
def test_causal_self_attention_at_position_i_ignores_later_tokens(case, data):
    n = case.n_q
    i = data.draw(st.integers(0, n - 1))
    later_shape = case.X_q.shape[:-2] + (n - i - 1, case.X_q.shape[-1])  # (..., n - i - 1, d_model)
    later = data.draw(S.float_arrays(case.X_q.dtype, later_shape, bound=TOKEN_BOUND))
    X_changed = case.X_q.copy()
    X_changed[..., i + 1 :, :] = later  # tokens after position i
    Y, _ = run(case, mask=causal_mask(n))
    Y_changed, _ = run(case, mask=causal_mask(n), X_q=X_changed, X_kv=X_changed)
    np.testing.assert_array_equal(Y_changed[..., : i + 1, :], Y[..., : i + 1, :])


@S.QUICK
@given(cases(), st.data())
def test_permuting_keys_and_values_together_leaves_Y_unchanged(case, data):
    order = np.array(data.draw(st.permutations(range(case.n_kv))))
    mask = None if case.mask is None else case.mask[..., order]  # the key axis is the last one
    Y, A = run(case)
    Y_perm, A_perm = run(case, mask=mask, X_kv=case.X_kv[..., order, :])
    np.testing.assert_allclose(Y_perm, Y, **tolerances(case.X_q.dtype))
    np.testing.assert_allclose(A_perm, A[..., order], **tolerances(case.X_q.dtype))


@S.QUICK
@given(cases(with_mask=False), st.data(), S.numeric_mask_dtypes())
def test_numeric_zero_one_mask_gives_the_same_result_as_bool_mask(case, data, mask_dtype):
    mask = data.draw(S.mask_shapes(case.batch, case.n_q, case.n_kv).flatmap(S.row_masks))
    Y_bool, A_bool = run(case, mask=mask)
    Y_num, A_num = run(case, mask=mask.astype(mask_dtype))
    np.testing.assert_array_equal(Y_num, Y_bool)
    np.testing.assert_array_equal(A_num, A_bool)


@S.QUICK
@given(cases(with_mask=False), st.data())
def test_padding_mask_applies_per_batch_element_to_every_query_and_head(case, data):
    padding = data.draw(S.row_masks(case.batch + (1, case.n_kv)))  # (..., 1, n_kv)
    Y, A = run(case, mask=padding)
    X_q = np.broadcast_to(case.X_q, case.batch + case.X_q.shape[-2:])
    X_kv = np.broadcast_to(case.X_kv, case.batch + case.X_kv.shape[-2:])
    for b in np.ndindex(case.batch):
        Y_b, A_b = multi_head_attention(X_q[b], X_kv[b], *case.weights, case.num_heads, padding[b + (0,)])
        np.testing.assert_allclose(Y[b], Y_b, **tolerances(case.X_q.dtype))
        np.testing.assert_allclose(A[b], A_b, **tolerances(case.X_q.dtype))


@S.QUICK
@given(cases(with_mask=False))
def test_scalar_true_mask_is_the_same_as_no_mask(case):
    Y, A = run(case, mask=None)
    Y_true, A_true = run(case, mask=True)
    np.testing.assert_array_equal(Y_true, Y)
    np.testing.assert_array_equal(A_true, A)


# Shapes below: d_model = 4, X_q (2, 3, 4), X_kv (2, 5, 4).
X_Q, X_KV = np.zeros((2, 3, 4)), np.zeros((2, 5, 4))
IDENTITY = np.eye(4)


@pytest.mark.parametrize("position", range(4))
@pytest.mark.parametrize("bad_shape", [(4, 3), (3, 4), (4,)])
def test_projection_of_wrong_shape_raises_value_error_naming_it(position, bad_shape):
    weights = [IDENTITY] * 4
    weights[position] = np.zeros(bad_shape)
    name = ("W_q", "W_k", "W_v", "W_o")[position]
    with pytest.raises(ValueError, match=re.escape(str(bad_shape))) as error:
        multi_head_attention(X_Q, X_KV, *weights, 2)
    assert name in str(error.value)
    assert str((4, 4)) in str(error.value)


@pytest.mark.parametrize("num_heads", [3, 0])
def test_num_heads_not_dividing_d_model_raises_value_error_naming_the_shape(num_heads):
    with pytest.raises(ValueError, match=re.escape(str(X_Q.shape))) as error:
        multi_head_attention(X_Q, X_KV, *[IDENTITY] * 4, num_heads)
    assert f"num_heads={num_heads}" in str(error.value)


def test_queries_and_keys_with_different_d_model_raise_value_error_naming_both_shapes():
    X_kv = np.zeros((2, 5, 6))
    with pytest.raises(ValueError, match=re.escape(str(X_Q.shape))) as error:
        multi_head_attention(X_Q, X_kv, *[IDENTITY] * 4, 2)
    assert str(X_kv.shape) in str(error.value)


def test_non_broadcastable_mask_raises_value_error_naming_the_weights_shape():
    mask = np.ones((3, 4), dtype=bool)  # n_kv of 4, but X_kv has 5 keys
    with pytest.raises(ValueError, match="mask") as error:
        multi_head_attention(X_Q, X_KV, *[IDENTITY] * 4, 2, mask)
    assert str((2, 2, 3, 5)) in str(error.value)  # A's (..., h, n_q, n_kv)


def test_non_broadcastable_batch_dims_raise_value_error():
    with pytest.raises(ValueError, match="batch dimensions do not broadcast"):
        multi_head_attention(X_Q, np.zeros((3, 5, 4)), *[IDENTITY] * 4, 2)
