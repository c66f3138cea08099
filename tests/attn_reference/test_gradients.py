"""Backward passes, centred differences and the gradient-norm experiment.

Oracles written here: Jacobian matrices built entry by entry, loops over indices that
accumulate broadcast gradients back into each input, centred differences, and PyTorch
autograd when torch is installed.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attn_reference.gradients import (
    RELATIVE_ERROR_FLOOR,
    format_gradient_norm_table,
    gradient_norm_table,
    numerical_gradient,
    relative_error,
    scaled_dot_product_attention_backward,
    softmax_backward,
    softmax_gradient_norm,
    softmax_jacobian,
)
from attn_reference.masks import causal_mask
from attn_reference.scaled_attention import scaled_dot_product_attention
from attn_reference.softmax import softmax
from tests import strategies as S

FLOAT64_RTOL, FLOAT64_ATOL = 1e-10, 1e-12
FLOAT32_RTOL, FLOAT32_ATOL = 1e-4, 1e-5
#: float32 attention gradients: dA = dZ V^T reaches d_v * 3 * 3 = 54 for the bounded inputs,
#: and dA - <dA, A> cancels to ~6e-8 * 54 * L_k ~ 2e-5 when rows of A do not sum to exactly 1
#: in float32; dQ and dK then add L_k such terms times |K|, |Q| <= 3.
FLOAT32_GRADIENT_ATOL = 5e-4
#: Centred differences with eps = 1e-5 on O(1) values are good to ~1e-9 absolute.
NUMERICAL_RTOL, NUMERICAL_ATOL = 1e-5, 1e-7
#: The notebook's bar for an analytic gradient against centred differences, in float64.
NOTEBOOK_RELATIVE_ERROR = 1e-7
#: A masked score filled with this finite value (PyTorch code often does) instead of -inf.
FINITE_FILL = -1e9


def tolerances(dtype) -> dict:
    if np.dtype(dtype) == np.float32:
        return {"rtol": FLOAT32_RTOL, "atol": FLOAT32_ATOL}
    return {"rtol": FLOAT64_RTOL, "atol": FLOAT64_ATOL}


def gradient_tolerances(dtype) -> dict:
    """Tolerances for attention gradients, whose float32 error scales with |dZ V^T|."""
    if np.dtype(dtype) == np.float32:
        return {"rtol": FLOAT32_RTOL, "atol": FLOAT32_GRADIENT_ATOL}
    return tolerances(dtype)


# --- oracles ------------------------------------------------------------------------------


def loop_jacobian(a) -> np.ndarray:
    """J[i, j] = da_i / ds_j = a_i (delta_ij - a_j), entry by entry."""
    n = len(a)
    return np.array([[a[i] * ((i == j) - a[j]) for j in range(n)] for i in range(n)])


def loop_softmax_backward(A, dA, axis) -> np.ndarray:
    """dS = J^T dA for every slice along ``axis``, with J built entry by entry."""
    A_last = np.moveaxis(np.asarray(A, dtype=np.float64), axis, -1)  # (..., n)
    dA_last = np.moveaxis(np.asarray(dA, dtype=np.float64), axis, -1)  # (..., n)
    dS = np.zeros_like(A_last)
    for index in np.ndindex(A_last.shape[:-1]):
        J = loop_jacobian(A_last[index])
        n = len(J)
        dS[index] = [math.fsum(J[j, i] * dA_last[index][j] for j in range(n)) for i in range(n)]
    return np.moveaxis(dS, -1, axis)


def _input_index(full_index: tuple, shape: tuple) -> tuple:
    """Where an entry of a broadcast array comes from in an input of ``shape``."""
    aligned = full_index[len(full_index) - len(shape):]
    return tuple(0 if side == 1 else i for i, side in zip(aligned, shape))


def loop_attention_backward(Q, K, V, A, dZ, mask=None):
    """dQ, dK, dV by loops over every index, accumulated into each input's own shape."""
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], A.shape[:-2], dZ.shape[:-2])
    (L_q, d_k), (L_k, d_v) = Q.shape[-2:], V.shape[-2:]
    allowed = np.broadcast_to(True if mask is None else np.asarray(mask) != 0, batch + (L_q, L_k))
    dQ, dK, dV = (np.zeros(x.shape) for x in (Q, K, V))
    for b in np.ndindex(batch):
        q, k, v = (x[_input_index(b, x.shape[:-2])].astype(np.float64) for x in (Q, K, V))
        a = np.where(allowed[b], A[_input_index(b, A.shape[:-2])], 0.0)  # (L_q, L_k)
        dz = dZ[_input_index(b, dZ.shape[:-2])].astype(np.float64)  # (L_q, d_v)
        da = np.array([[math.fsum(dz[i, c] * v[j, c] for c in range(d_v)) for j in range(L_k)] for i in range(L_q)])
        ds = np.array([loop_jacobian(a[i]).T @ da[i] for i in range(L_q)]) / math.sqrt(d_k)  # (L_q, L_k)
        for i, j in np.ndindex(L_q, L_k):
            dQ[_input_index(b, Q.shape[:-2]) + (i,)] += ds[i, j] * k[j]
            dK[_input_index(b, K.shape[:-2]) + (j,)] += ds[i, j] * q[i]
            dV[_input_index(b, V.shape[:-2]) + (j,)] += a[i, j] * dz[i]
    return dQ, dK, dV


def attention_loss(G, mask=None):
    """The functions (Q, K, V) -> sum(Z * G) whose gradients the backward pass computes."""
    return lambda Q, K, V: float(np.sum(scaled_dot_product_attention(Q, K, V, mask)[0] * G))


def numerical_attention_gradients(Q, K, V, G, mask=None):
    loss = attention_loss(G, mask)
    return (
        numerical_gradient(lambda x: loss(x, K, V), Q),
        numerical_gradient(lambda x: loss(Q, x, V), K),
        numerical_gradient(lambda x: loss(Q, K, x), V),
    )


#: Stands for "the mask the inputs were drawn with".
DRAWN = object()


def backward_of(p: S.AttentionBackwardInputs, mask=DRAWN):
    """The forward weights A and (dQ, dK, dV) of the inputs, under their mask or another."""
    mask = p.mask if mask is DRAWN else mask
    _, A = scaled_dot_product_attention(p.Q, p.K, p.V, mask)
    return A, scaled_dot_product_attention_backward(p.Q, p.K, p.V, A, p.dZ, mask)


@st.composite
def softmax_cases(draw):
    """Weights A = softmax(S) along an axis, an upstream gradient dA, and the axis."""
    dtype = draw(S.float_dtypes())
    shape = draw(S.batch_shapes(max_dims=2)) + (draw(S.lengths()),)
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    S_scores = draw(S.float_arrays(dtype, shape))
    dA = draw(S.float_arrays(dtype, shape))
    return softmax(S_scores, axis=axis), dA, axis


# --- softmax_backward and softmax_jacobian ------------------------------------------------


@S.QUICK
@given(softmax_cases())
def test_softmax_backward_is_the_jacobian_transpose_times_dA(case):
    A, dA, axis = case
    dS = softmax_backward(A, dA, axis=axis)
    assert dS.dtype == A.dtype and dS.shape == A.shape
    np.testing.assert_allclose(dS, loop_softmax_backward(A, dA, axis), **tolerances(A.dtype))


@S.QUICK
@given(S.batch_shapes(), S.lengths(), st.data())
def test_softmax_backward_matches_centred_differences(batch, n, data):
    scores = data.draw(S.float_arrays(np.float64, batch + (n,)))
    G = data.draw(S.float_arrays(np.float64, batch + (n,)))
    numeric = numerical_gradient(lambda s: np.sum(softmax(s) * G), scores)
    np.testing.assert_allclose(softmax_backward(softmax(scores), G), numeric, rtol=NUMERICAL_RTOL, atol=NUMERICAL_ATOL)


@S.QUICK
@given(softmax_cases(), st.floats(-5, 5))
def test_a_constant_upstream_gradient_gives_zero(case, constant):
    """Softmax ignores a shift of its input, so a gradient along (1, ..., 1) vanishes."""
    A, _, axis = case
    dS = softmax_backward(A, np.full(A.shape, constant, dtype=A.dtype), axis=axis)
    np.testing.assert_allclose(dS, 0.0, atol=10 * tolerances(A.dtype)["atol"])


def test_weights_of_exactly_zero_get_exactly_zero_gradient():
    A = softmax(np.array([[0.3, -np.inf, 1.2, -np.inf], [-np.inf, 2.0, 0.1, 0.4]]))
    dS = softmax_backward(A, np.random.default_rng(1).standard_normal(A.shape))
    assert (dS[A == 0] == 0.0).all()
    assert (dS[A != 0] != 0.0).all()


def test_worked_example():
    # A = [0.5, 0.25, 0.25], dA = e_0: <dA, A> = 0.5, so dS = A * (dA - 0.5).
    np.testing.assert_allclose(softmax_backward([0.5, 0.25, 0.25], [1.0, 0.0, 0.0]), [0.25, -0.125, -0.125])


@S.QUICK
@given(S.batch_shapes(), S.lengths(), st.data())
def test_softmax_jacobian_matches_entries_and_centred_differences(batch, n, data):
    scores = data.draw(S.float_arrays(np.float64, batch + (n,)))
    J = softmax_jacobian(softmax(scores))
    assert J.shape == batch + (n, n)
    for index in np.ndindex(batch):
        np.testing.assert_allclose(J[index], loop_jacobian(softmax(scores[index])), rtol=FLOAT64_RTOL, atol=FLOAT64_ATOL)
        rows = [numerical_gradient(lambda s: softmax(s)[i], scores[index]) for i in range(n)]
        np.testing.assert_allclose(J[index], rows, rtol=NUMERICAL_RTOL, atol=NUMERICAL_ATOL)
    np.testing.assert_array_equal(J, np.swapaxes(J, -1, -2))


def test_softmax_backward_rejects_different_shapes_and_bad_axes():
    with pytest.raises(ValueError, match=re.escape("A (2, 3) and dA (3, 2) must have the same shape")):
        softmax_backward(np.zeros((2, 3)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match=re.escape("axis 2 is out of range for A of shape (2, 3)")):
        softmax_backward(np.zeros((2, 3)), np.zeros((2, 3)), axis=2)
    with pytest.raises(ValueError, match="at least 1 dimensions"):
        softmax_backward(0.5, 1.0)


# --- scaled_dot_product_attention_backward --------------------------------------------------


@S.QUICK
@given(S.attention_backward_inputs())
def test_attention_backward_matches_loops_over_indices(p):
    A, gradients = backward_of(p)
    expected = loop_attention_backward(p.Q, p.K, p.V, A, p.dZ, p.mask)
    for actual, wanted, x in zip(gradients, expected, (p.Q, p.K, p.V)):
        assert actual.shape == x.shape and actual.dtype == p.Q.dtype
        np.testing.assert_allclose(actual, wanted, **gradient_tolerances(p.Q.dtype))


@S.QUICK
@given(S.attention_backward_inputs(dtypes=(np.float64,)))
def test_attention_backward_matches_centred_differences(p):
    _, gradients = backward_of(p)
    for actual, numeric in zip(gradients, numerical_attention_gradients(p.Q, p.K, p.V, p.dZ, p.mask)):
        np.testing.assert_allclose(actual, numeric, rtol=NUMERICAL_RTOL, atol=NUMERICAL_ATOL)


@pytest.mark.parametrize("seed", range(5))
def test_causal_self_attention_meets_the_notebooks_relative_error_bar(seed):
    rng = np.random.default_rng(seed)
    Q, K, V, G = (rng.standard_normal((4, 3)) for _ in range(4))
    mask = causal_mask(4)
    _, A = scaled_dot_product_attention(Q, K, V, mask)
    gradients = scaled_dot_product_attention_backward(Q, K, V, A, G, mask)
    for actual, numeric in zip(gradients, numerical_attention_gradients(Q, K, V, G, mask)):
        assert relative_error(actual, numeric) < NOTEBOOK_RELATIVE_ERROR


def _padded_problem(seed: int = 3):
    """Batch 2, 4 queries, 5 keys: sequence 1 has 3 real keys and 2 real queries."""
    rng = np.random.default_rng(seed)
    Q, K, V = rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 5, 2))
    dZ = rng.standard_normal((2, 4, 2))
    mask = np.ones((2, 4, 5), dtype=bool)
    mask[1, :, 3:] = False  # padding keys
    mask[1, 2:, :] = False  # padding queries: no allowed key at all
    return Q, K, V, dZ, mask


def test_padding_gets_exactly_zero_gradient_whatever_the_forward_filled_in():
    Q, K, V, dZ, mask = _padded_problem()
    _, A_nan = scaled_dot_product_attention(Q, K, V, mask)  # rows without a key are NaN
    scores = np.where(mask, Q @ np.swapaxes(K, -1, -2) / math.sqrt(3), FINITE_FILL)
    A_uniform = softmax(scores)  # rows without a key are uniform
    assert np.isnan(A_nan[1, 2:]).all() and np.allclose(A_uniform[1, 2:], 1 / 5)
    results = [scaled_dot_product_attention_backward(Q, K, V, A, dZ, mask) for A in (A_nan, A_uniform)]
    for dQ, dK, dV in results:
        assert (dQ[1, 2:] == 0.0).all() and (dK[1, 3:] == 0.0).all() and (dV[1, 3:] == 0.0).all()
        assert np.isfinite(dQ).all() and np.isfinite(dK).all() and np.isfinite(dV).all()
    for first, second in zip(*results):
        np.testing.assert_array_equal(first, second)


def test_real_queries_and_keys_do_not_see_the_padding():
    """Dropping the padding and differentiating the smaller problem gives the same gradients."""
    Q, K, V, dZ, mask = _padded_problem()
    _, A = scaled_dot_product_attention(Q, K, V, mask)
    dQ, dK, dV = scaled_dot_product_attention_backward(Q, K, V, A, dZ, mask)
    _, A_small = scaled_dot_product_attention(Q[1, :2], K[1, :3], V[1, :3])
    small = scaled_dot_product_attention_backward(Q[1, :2], K[1, :3], V[1, :3], A_small, dZ[1, :2])
    for full, part in zip((dQ[1, :2], dK[1, :3], dV[1, :3]), small):
        np.testing.assert_allclose(full, part, rtol=FLOAT64_RTOL, atol=FLOAT64_ATOL)


@S.QUICK
@given(S.attention_backward_inputs(with_mask=False), st.data(), S.numeric_mask_dtypes())
def test_a_zero_one_mask_means_the_same_as_a_boolean_one(p, data, mask_dtype):
    mask = data.draw(S.mask_shapes(p.score_batch, p.Q.shape[-2], p.K.shape[-2]).flatmap(S.row_masks))
    A, by_bool = backward_of(p, mask)
    by_number = scaled_dot_product_attention_backward(p.Q, p.K, p.V, A, p.dZ, mask.astype(mask_dtype))
    for first, second in zip(by_bool, by_number):
        np.testing.assert_array_equal(first, second)


def test_broadcast_batch_dimensions_are_summed_back_to_each_input():
    rng = np.random.default_rng(4)
    Q, K, V = rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((3, 6, 5)), rng.standard_normal((1, 1, 6, 2))
    _, A = scaled_dot_product_attention(Q, K, V)
    dZ = rng.standard_normal((2, 3, 4, 2))
    dQ, dK, dV = scaled_dot_product_attention_backward(Q, K, V, A, dZ)
    assert (dQ.shape, dK.shape, dV.shape) == (Q.shape, K.shape, V.shape)
    expanded = [np.broadcast_to(x, (2, 3) + x.shape[-2:]).copy() for x in (Q, K, V)]  # (2, 3, L, d) each
    full_dQ, full_dK, full_dV = scaled_dot_product_attention_backward(*expanded, A, dZ)
    np.testing.assert_allclose(dK, full_dK.sum(axis=0), rtol=FLOAT64_RTOL, atol=FLOAT64_ATOL)
    np.testing.assert_allclose(dV, full_dV.sum(axis=(0, 1), keepdims=True), rtol=FLOAT64_RTOL, atol=FLOAT64_ATOL)
    np.testing.assert_array_equal(dQ, full_dQ)


def test_float32_stays_float32_and_mixed_inputs_give_float64():
    rng = np.random.default_rng(5)
    Q, K, V, dZ = (rng.standard_normal(shape).astype(np.float32) for shape in ((3, 2), (4, 2), (4, 3), (3, 3)))
    _, A = scaled_dot_product_attention(Q, K, V, causal_mask(4)[:3])
    assert {g.dtype for g in scaled_dot_product_attention_backward(Q, K, V, A, dZ, causal_mask(4)[:3])} == {np.dtype(np.float32)}
    assert {g.dtype for g in scaled_dot_product_attention_backward(Q, K, V, A, dZ.astype(np.float64))} == {np.dtype(np.float64)}


@pytest.mark.parametrize(
    ("shapes", "message"),
    [
        (((3, 4), (5, 6), (5, 2), (3, 5), (3, 2)), "must share the last dimension d_k"),
        (((3, 4), (5, 4), (6, 2), (3, 5), (3, 2)), "must have the same number of keys L_k"),
        (((3, 4), (5, 4), (5, 2), (5, 3), (3, 2)), "A (5, 3) must end in (L_q, L_k) = (3, 5)"),
        (((3, 4), (5, 4), (5, 2), (3, 5), (3, 4)), "dZ (3, 4) must end in (L_q, d_v) = (3, 2)"),
        (((2, 3, 4), (3, 5, 4), (5, 2), (3, 5), (3, 2)), "batch dimensions do not broadcast"),
    ],
    ids=["d_k", "L_k", "A", "dZ", "batch"],
)
def test_shapes_that_do_not_fit_raise_value_error_naming_them(shapes, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        scaled_dot_product_attention_backward(*(np.zeros(shape) for shape in shapes))


def test_a_mask_that_does_not_broadcast_raises_value_error_naming_its_shape():
    arrays = (np.zeros((3, 4)), np.zeros((5, 4)), np.zeros((5, 2)), np.zeros((3, 5)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match=re.escape("mask of shape (3, 4) does not broadcast to (3, 5)")):
        scaled_dot_product_attention_backward(*arrays, mask=np.ones((3, 4), dtype=bool))


# --- PyTorch autograd ---------------------------------------------------------------------


@S.QUICK
@given(S.attention_backward_inputs())
def test_attention_backward_agrees_with_pytorch_autograd(p):
    torch = pytest.importorskip("torch", reason="PyTorch is optional: pip install -e '.[torch]' to compare with autograd")
    A, gradients = backward_of(p)
    leaves = [torch.tensor(x, requires_grad=True) for x in (p.Q, p.K, p.V)]
    Q, K, V = leaves
    scores = Q @ K.transpose(-1, -2) / math.sqrt(p.Q.shape[-1])
    if p.mask is not None:
        scores = scores.masked_fill(~torch.from_numpy(np.ascontiguousarray(p.mask)), float("-inf"))
    Z = torch.softmax(scores, dim=-1) @ V
    Z.backward(torch.from_numpy(p.dZ))
    for actual, leaf in zip(gradients, leaves):
        assert actual.dtype == leaf.grad.numpy().dtype
        np.testing.assert_allclose(actual, leaf.grad.numpy(), **gradient_tolerances(p.Q.dtype))


@S.QUICK
@given(softmax_cases())
def test_softmax_backward_agrees_with_pytorch_autograd(case):
    torch = pytest.importorskip("torch", reason="PyTorch is optional: pip install -e '.[torch]' to compare with autograd")
    A, dA, axis = case
    scores = torch.tensor(np.log(A), requires_grad=True)  # softmax(log A) = A
    torch.softmax(scores, dim=axis).backward(torch.from_numpy(dA))
    np.testing.assert_allclose(softmax_backward(A, dA, axis=axis), scores.grad.numpy(), **tolerances(A.dtype))


# --- numerical_gradient and relative_error ------------------------------------------------


@S.QUICK
@given(S.batch_shapes(max_dims=3), st.data())
def test_centred_differences_are_exact_for_a_quadratic(shape, data):
    """The second-order error term vanishes for a quadratic: only rounding is left."""
    x = data.draw(S.float_arrays(np.float64, shape))
    gradient = numerical_gradient(lambda y: np.sum(y**2) + 3.0, x)
    assert gradient.shape == x.shape and gradient.dtype == np.float64
    # f(x + eps) - f(x - eps) loses a few ulps of f; divided by 2 eps that is the whole error left.
    rounding = 4 * np.finfo(np.float64).eps * (np.sum(x**2) + 3.0) / (2 * 1e-5)
    np.testing.assert_allclose(gradient, 2 * x, rtol=0, atol=rounding)


def test_centred_difference_error_shrinks_like_eps_squared():
    x = np.array([0.7])
    errors = [abs(numerical_gradient(lambda y: np.sum(y**3), x, eps)[0] - 3 * 0.7**2) for eps in (1e-2, 1e-3)]
    assert errors[0] == pytest.approx(1e-4, rel=1e-3)  # f'''/6 * eps^2 = eps^2 for y^3
    assert errors[1] == pytest.approx(1e-6, rel=1e-2)


def test_numerical_gradient_leaves_x_alone_and_hands_f_copies():
    x = np.arange(6.0).reshape(2, 3)
    seen = []

    def f(y):
        seen.append(y)
        total = float(np.sum(np.sin(y)))
        y[...] = 99.0  # a careless f must not change the point or the next evaluation
        return total

    gradient = numerical_gradient(f, x)
    np.testing.assert_array_equal(x, np.arange(6.0).reshape(2, 3))
    np.testing.assert_allclose(gradient, np.cos(x), atol=1e-9)
    assert len(seen) == 2 * x.size and len({id(y) for y in seen}) == len(seen)


def test_numerical_gradient_of_float32_and_scalar_points_is_float64():
    assert numerical_gradient(lambda y: np.sum(y * y), np.float32(1.5)).shape == ()
    assert numerical_gradient(lambda y: np.sum(y), np.ones(3, dtype=np.float32)).dtype == np.float64


@pytest.mark.parametrize("eps", [0.0, -1e-5])
def test_numerical_gradient_rejects_a_step_that_is_not_positive(eps):
    with pytest.raises(ValueError, match="eps must be positive"):
        numerical_gradient(np.sum, np.ones(2), eps)


def test_numerical_gradient_rejects_a_function_returning_an_array():
    with pytest.raises(ValueError, match=re.escape("f must return a scalar, got an array of shape (2,)")):
        numerical_gradient(lambda y: y, np.ones(2))


@S.QUICK
@given(S.batch_shapes(max_dims=3), st.data())
def test_relative_error_is_the_worst_entry_of_the_cs231n_ratio(shape, data):
    a = data.draw(S.float_arrays(np.float64, shape))
    b = data.draw(S.float_arrays(np.float64, shape))
    ratios = [abs(x - y) / max(abs(x) + abs(y), RELATIVE_ERROR_FLOOR) for x, y in zip(a.ravel(), b.ravel())]
    assert relative_error(a, b) == pytest.approx(max(ratios), rel=1e-12, abs=0.0)
    assert 0.0 <= relative_error(a, b) <= 1.0
    assert relative_error(a, b) == relative_error(b, a)


def test_relative_error_cases():
    assert relative_error([0.0, 2.0], [0.0, 2.0]) == 0.0  # 0/max(0, floor) = 0
    assert relative_error([1.0], [3.0]) == 0.5
    assert relative_error([1e-9], [0.0]) == pytest.approx(0.1)  # the floor, not |a| + |b|, divides
    assert relative_error([1.0], [-1.0]) == 1.0
    assert relative_error(np.zeros((0, 3)), np.zeros((0, 3))) == 0.0
    assert math.isnan(relative_error([np.nan, 1.0], [0.0, 1.0]))
    assert isinstance(relative_error(np.float32([1.0]), np.float32([1.5])), float)


def test_relative_error_rejects_different_shapes():
    with pytest.raises(ValueError, match=re.escape("a (2,) and b (3,) must have the same shape")):
        relative_error(np.zeros(2), np.zeros(3))


# --- softmax_gradient_norm ------------------------------------------------------------------


def documented_recipe(d_k: int, n_keys: int, n_samples: int, seed: int, scaled: bool) -> float:
    """The contract in loops: draw q then K; per sample, ||diag(a) - a a^T||_F; the mean."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n_samples, d_k))  # (n_samples, d_k)
    K = rng.standard_normal((n_samples, n_keys, d_k))  # (n_samples, n_keys, d_k)
    norms = []
    for s in range(n_samples):
        t = [math.fsum(K[s, j, c] * q[s, c] for c in range(d_k)) / (math.sqrt(d_k) if scaled else 1.0) for j in range(n_keys)]
        a = [math.exp(v - max(t)) for v in t]
        a = [v / math.fsum(a) for v in a]
        norms.append(math.sqrt(math.fsum(entry**2 for row in loop_jacobian(a) for entry in row)))
    return math.fsum(norms) / n_samples


@pytest.mark.parametrize(("d_k", "n_keys", "scaled"), [(1, 3, True), (5, 4, False), (16, 2, True), (64, 8, False)])
def test_gradient_norm_follows_the_documented_recipe(d_k, n_keys, scaled):
    actual = softmax_gradient_norm(d_k, n_keys, 200, np.random.default_rng(d_k), scaled=scaled)
    assert isinstance(actual, float)
    assert actual == pytest.approx(documented_recipe(d_k, n_keys, 200, d_k, scaled), rel=1e-12)


def test_exactly_q_then_K_are_drawn():
    d_k, n_keys, n_samples = 3, 4, 10
    used = np.random.default_rng(6)
    softmax_gradient_norm(d_k, n_keys, n_samples, used)
    replay = np.random.default_rng(6)
    replay.standard_normal((n_samples, d_k))
    replay.standard_normal((n_samples, n_keys, d_k))
    assert used.bit_generator.state == replay.bit_generator.state


def test_scaling_changes_nothing_for_d_k_one_and_the_draws_are_shared():
    assert softmax_gradient_norm(1, 5, 300, np.random.default_rng(2), scaled=True) == softmax_gradient_norm(
        1, 5, 300, np.random.default_rng(2), scaled=False
    )


def test_one_key_has_a_zero_jacobian():
    assert softmax_gradient_norm(4, 1, 10, np.random.default_rng(0)) == 0.0


@S.QUICK
@given(S.dims(), st.integers(1, 10), st.integers(0, 2**16), st.booleans())
def test_every_norm_lies_in_zero_one(d_k, n_keys, seed, scaled):
    """||J||_F <= trace(J) = 1 - sum(a^2) < 1, since J is positive semi-definite."""
    assert 0.0 <= softmax_gradient_norm(d_k, n_keys, 20, np.random.default_rng(seed), scaled) < 1.0


def test_unscaled_norm_collapses_as_d_k_grows_and_scaled_norm_does_not():
    table = gradient_norm_table([4, 64, 1024], n_keys=8, n_samples=1_500, seed=1)
    raw, scaled = table[:, 1], table[:, 2]
    assert raw[0] > 2 * raw[1] > 4 * raw[2]  # roughly 1/sqrt(d_k) once saturated
    assert np.ptp(scaled) < 0.02 and scaled.min() > 0.3


@pytest.mark.parametrize(("d_k", "n_keys", "n_samples"), [(0, 3, 10), (3, 0, 10), (3, 3, 0)])
def test_sizes_below_one_raise_value_error_naming_them(d_k, n_keys, n_samples):
    with pytest.raises(ValueError, match=re.escape(f"d_k={d_k}, n_keys={n_keys}, n_samples={n_samples}")):
        softmax_gradient_norm(d_k, n_keys, n_samples, np.random.default_rng(0))


def test_gradient_norm_table_rows_use_a_fresh_generator_for_each_entry():
    table = gradient_norm_table([2, 32, 2], n_keys=4, n_samples=100, seed=9)
    assert table.shape == (3, 3) and table.dtype == np.float64
    np.testing.assert_array_equal(table[:, 0], [2, 32, 2])
    np.testing.assert_array_equal(table[0], table[2])  # the same seed for every entry, not one stream
    expected = [softmax_gradient_norm(32, 4, 100, np.random.default_rng(9), scaled) for scaled in (False, True)]
    np.testing.assert_array_equal(table[1, 1:], expected)
    assert gradient_norm_table([], n_keys=4, n_samples=10).shape == (0, 3)


def test_format_gradient_norm_table_prints_every_row():
    table = gradient_norm_table([1, 256], n_keys=4, n_samples=200)
    lines = format_gradient_norm_table(table).splitlines()
    assert len(lines) == 3 and lines[0].split()[0] == "d_k"
    for line, (d_k, raw, scaled) in zip(lines[1:], table):
        printed = line.split()
        assert int(printed[0]) == d_k
        assert abs(float(printed[1]) - raw) <= 5e-5 + 1e-12 and abs(float(printed[2]) - scaled) <= 5e-5 + 1e-12
