r"""Backward passes through softmax and attention, their numerical check, and the d_k gradient experiment.

Conventions are the forward pass's: shapes ``(..., L_q, d_k)`` with broadcasting batch
dimensions, masks True/1 = *may attend*, float32 kept when every array input is float32.
An upstream gradient is named after what it is the gradient of: ``dZ = dL/dZ`` for a
scalar loss ``L``.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from attn_reference._validate import as_bool_mask, as_float_array, batch_shape, check_broadcastable
from attn_reference.contract import Output, OutputKind, graded
from attn_reference.softmax import softmax

#: Default step of the centred differences: balances truncation (~eps^2) and rounding (~1e-16 / eps).
DEFAULT_EPS = 1e-5
#: CS231n's floor on the denominator of the relative error, so that two zeros compare as equal.
RELATIVE_ERROR_FLOOR = 1e-8
#: Defaults of :func:`gradient_norm_table`.
DEFAULT_N_KEYS = 8
DEFAULT_N_SAMPLES = 2_000


def _check_axis(axis: int, array: np.ndarray, name: str) -> None:
    if not -array.ndim <= axis < array.ndim:
        raise ValueError(f"axis {axis} is out of range for {name} of shape {array.shape}")


@graded(Output("dS"), core_ndim={"A": 1, "dA": 1})
def softmax_backward(A, dA, axis: int = -1) -> np.ndarray:
    r"""Vector-Jacobian product of softmax, from the weights alone.

    For ``A = softmax(S)`` along ``axis`` and an upstream gradient ``dA = dL/dA``,

    .. math::

        dS = J^\top dA = A \odot \Big(dA - \sum_j dA_j A_j\Big),
        \qquad J = \operatorname{diag}(A) - A A^\top ,

    the sum running along ``axis``. No Jacobian matrix is formed. A weight of exactly 0
    (a masked position) gets a gradient of exactly 0.

    Parameters
    ----------
    A : array_like, shape (..., n, ...)
        Softmax weights along ``axis``.
    dA : array_like, same shape as ``A``
        Gradient of the loss with respect to ``A``.
    axis : int
        The axis the softmax normalised over.

    Returns
    -------
    numpy.ndarray, same shape as ``A``
        ``dS = dL/dS``; float32 when ``A`` and ``dA`` are float32, float64 otherwise.

    Raises
    ------
    ValueError
        When the shapes differ, ``A`` is a scalar or ``axis`` is out of range.
    """
    A = as_float_array(A, "A", min_ndim=1)
    dA = as_float_array(dA, "dA", min_ndim=1)
    if A.shape != dA.shape:
        raise ValueError(f"A {A.shape} and dA {dA.shape} must have the same shape")
    _check_axis(axis, A, "A")
    projection = np.sum(dA * A, axis=axis, keepdims=True)  # (..., 1, ...): <dA, A> per slice
    return A * (dA - projection)


def softmax_jacobian(A) -> np.ndarray:
    r"""The Jacobian of softmax along the last axis: ``J = diag(a) - a a^T`` for every slice.

    ``J[..., i, j] = da_i / ds_j = a_i (delta_ij - a_j)``. It is symmetric.

    Parameters
    ----------
    A : array_like, shape (..., n)
        Softmax weights.

    Returns
    -------
    numpy.ndarray, shape (..., n, n)

    Raises
    ------
    ValueError
        When ``A`` is a scalar.
    """
    A = as_float_array(A, "A", min_ndim=1)
    diagonal = A[..., :, None] * np.eye(A.shape[-1], dtype=A.dtype)  # (..., n, n): diag(a)
    outer = A[..., :, None] * A[..., None, :]  # (..., n, n): a a^T
    return diagonal - outer


def _reduce_to_shape(gradient: np.ndarray, shape: tuple) -> np.ndarray:
    """Sum a broadcast gradient back to the shape of the input it belongs to."""
    leading = gradient.ndim - len(shape)
    summed = np.sum(gradient, axis=tuple(range(leading)))  # the batch axes the input lacked
    stretched = tuple(i for i, side in enumerate(shape) if side == 1 and summed.shape[i] != 1)
    return np.sum(summed, axis=stretched, keepdims=True).reshape(shape)  # (*shape)


def _backward_inputs(Q, K, V, A, dZ) -> tuple[np.ndarray, ...]:
    """The five arrays as floats, after checking their core shapes fit together."""
    Q, K, V, A, dZ = (as_float_array(x, name, min_ndim=2) for x, name in zip((Q, K, V, A, dZ), ("Q", "K", "V", "A", "dZ")))
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q {Q.shape} and K {K.shape} must share the last dimension d_k")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K {K.shape} and V {V.shape} must have the same number of keys L_k")
    if A.shape[-2:] != (Q.shape[-2], K.shape[-2]):
        raise ValueError(f"A {A.shape} must end in (L_q, L_k) = {(Q.shape[-2], K.shape[-2])} for Q {Q.shape} and K {K.shape}")
    if dZ.shape[-2:] != (Q.shape[-2], V.shape[-1]):
        raise ValueError(f"dZ {dZ.shape} must end in (L_q, d_v) = {(Q.shape[-2], V.shape[-1])} for Q {Q.shape} and V {V.shape}")
    return Q, K, V, A, dZ


@graded(
    Output("dQ", axes=("L_q", "d_k")),
    Output("dK", axes=("L_k", "d_k")),
    Output("dV", axes=("L_k", "d_v")),
    calls=("softmax_backward",),
    core_ndim={"Q": 2, "K": 2, "V": 2, "A": 2, "dZ": 2, "mask": 2},
)
def scaled_dot_product_attention_backward(
    Q, K, V, A, dZ, mask=None, *, softmax_backward=softmax_backward
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Gradients of a loss through ``Z = softmax(mask(Q K^T / sqrt(d_k))) V``.

    With ``W`` the weights ``A`` set to exactly 0 where the mask is False,

    .. math::

        dV = W^\top dZ, \quad dW = dZ\, V^\top, \quad
        dS = \operatorname{softmax\_backward}(W, dW), \quad
        dQ = \frac{dS\, K}{\sqrt{d_k}}, \quad dK = \frac{dS^\top Q}{\sqrt{d_k}} .

    A masked score is the constant ``-inf``, so no gradient flows through a masked
    position: it contributes exactly 0 to ``dQ``, ``dK`` and ``dV`` whatever ``A`` holds
    there (0 from :func:`~attn_reference.scaled_dot_product_attention`; NaN in a row with
    no allowed key; uniform weights from a forward pass that filled masked scores with
    a large finite negative number). A query with no allowed key gets ``dQ = 0``.

    Parameters
    ----------
    Q : array_like, shape (..., L_q, d_k)
    K : array_like, shape (..., L_k, d_k)
    V : array_like, shape (..., L_k, d_v)
    A : array_like, shape (..., L_q, L_k)
        The forward pass's attention weights.
    dZ : array_like, shape (..., L_q, d_v)
        Gradient of the loss with respect to the output ``Z = A V``.
    mask : array_like of bool or 0/1, broadcastable to (..., L_q, L_k), optional
        The forward pass's mask: True/1 where the query may attend to the key.

    Other Parameters
    ----------------
    softmax_backward : callable, default :func:`softmax_backward`
        The softmax backward step; the grader passes a student's own to carry an
        error in it forward.

    Returns
    -------
    dQ, dK, dV : numpy.ndarray
        Shaped like ``Q``, ``K`` and ``V``: where a batch dimension was broadcast, the
        gradient is summed over it. float32 when every array is float32, float64 otherwise.

    Raises
    ------
    ValueError
        When the shapes do not fit together or the mask does not broadcast (the message
        names the shapes).
    """
    Q, K, V, A, dZ = _backward_inputs(Q, K, V, A, dZ)
    shapes = (("Q", Q.shape), ("K", K.shape), ("V", V.shape), ("A", A.shape), ("dZ", dZ.shape))
    batch = batch_shape(*shapes, core_ndim=dict.fromkeys(("Q", "K", "V", "A", "dZ"), 2))
    weights = A
    if mask is not None:
        allowed = as_bool_mask(mask)
        check_broadcastable(batch + A.shape[-2:], allowed.shape, "mask")
        weights = np.where(allowed, A, np.zeros((), A.dtype))  # (..., L_q, L_k): masked weights are 0
    dV = np.swapaxes(weights, -1, -2) @ dZ  # (..., L_k, L_q) @ (..., L_q, d_v) -> (..., L_k, d_v)
    dW = dZ @ np.swapaxes(V, -1, -2)  # (..., L_q, d_v) @ (..., d_v, L_k) -> (..., L_q, L_k)
    dS = softmax_backward(*np.broadcast_arrays(weights, dW), axis=-1) / math.sqrt(Q.shape[-1])  # (..., L_q, L_k)
    dQ = dS @ K  # (..., L_q, L_k) @ (..., L_k, d_k) -> (..., L_q, d_k)
    dK = np.swapaxes(dS, -1, -2) @ Q  # (..., L_k, L_q) @ (..., L_q, d_k) -> (..., L_k, d_k)
    return _reduce_to_shape(dQ, Q.shape), _reduce_to_shape(dK, K.shape), _reduce_to_shape(dV, V.shape)


def _scalar(value) -> float:
    array = np.asarray(value, dtype=np.float64)
    if array.size != 1:
        raise ValueError(f"f must return a scalar, got an array of shape {array.shape}")
    return float(array.reshape(()))


def numerical_gradient(f: Callable, x, eps: float = DEFAULT_EPS) -> np.ndarray:
    r"""Gradient of a scalar function by centred differences, one entry at a time.

    .. math::

        g_i = \frac{f(x + \varepsilon e_i) - f(x - \varepsilon e_i)}{2 \varepsilon}

    The error is of order ``eps**2`` (truncation) plus ``1e-16 * |f| / eps`` (rounding).

    Parameters
    ----------
    f : callable
        ``f(x) -> scalar`` (a float or an array of one element). It receives a fresh
        float64 copy of ``x`` for every evaluation, ``2 * x.size`` evaluations in all.
    x : array_like
        The point; any shape. It is not modified.
    eps : float
        The step, greater than 0.

    Returns
    -------
    numpy.ndarray of float64, shape of ``x``

    Raises
    ------
    ValueError
        When ``eps`` is not positive, ``x`` is not numeric or ``f`` returns more than one number.
    """
    if not eps > 0:
        raise ValueError(f"eps must be positive, got {eps!r}")
    point = as_float_array(x, "x").astype(np.float64)  # a private float64 copy
    gradient = np.zeros(point.shape, dtype=np.float64)
    for index in np.ndindex(point.shape):
        forward, backward = point.copy(), point.copy()
        forward[index] += eps
        backward[index] -= eps
        gradient[index] = (_scalar(f(forward)) - _scalar(f(backward))) / (2 * eps)
    return gradient


def relative_error(a, b) -> float:
    r"""CS231n's relative error: the worst entry of ``|a - b| / max(|a| + |b|, 1e-8)``.

    .. math::

        \operatorname{rel}(a, b) = \max_i \frac{|a_i - b_i|}{\max(|a_i| + |b_i|,\ 10^{-8})}

    computed in float64. It lies in ``[0, 1]``; two entries that are both exactly 0 count
    as equal. Below about ``1e-7`` an analytic gradient agrees with a centred-difference
    one in float64.

    Parameters
    ----------
    a, b : array_like
        Same shape.

    Returns
    -------
    float
        0.0 for empty arrays; NaN when an entry is NaN.

    Raises
    ------
    ValueError
        When the shapes differ or an input is not numeric.
    """
    a = as_float_array(a, "a").astype(np.float64)
    b = as_float_array(b, "b").astype(np.float64)
    if a.shape != b.shape:
        raise ValueError(f"a {a.shape} and b {b.shape} must have the same shape")
    if a.size == 0:
        return 0.0
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(a) + np.abs(b), RELATIVE_ERROR_FLOOR)))


@graded(Output("the mean norm", OutputKind.NUMBER))
def softmax_gradient_norm(d_k: int, n_keys: int, n_samples: int, rng: np.random.Generator, scaled: bool = True) -> float:
    r"""Mean Frobenius norm of the softmax Jacobian for one random query against random keys.

    Draw order (part of the contract, so results are reproducible): first
    ``q = rng.standard_normal((n_samples, d_k))``, then
    ``K = rng.standard_normal((n_samples, n_keys, d_k))``; nothing else. Sample ``s``
    scores ``q[s]`` against the rows of ``K[s]``: ``t = K[s] q[s] / sqrt(d_k)`` when
    ``scaled``, ``t = K[s] q[s]`` otherwise. With ``a = softmax(t)`` and
    ``J = diag(a) - a a^T`` (``J_ij = da_i / dt_j``, the Jacobian at the softmax's own
    input), the sample's value is ``||J||_F = sqrt(sum_ij J_ij^2)``. The result is the mean
    over the ``n_samples`` samples. Every value lies in ``[0, 1)``; the same draws serve
    ``scaled=True`` and ``scaled=False`` for the same seed.

    Parameters
    ----------
    d_k : int
        Dimension of the query and keys, at least 1.
    n_keys : int
        Keys per query, at least 1.
    n_samples : int
        Number of queries, at least 1.
    rng : numpy.random.Generator
    scaled : bool
        Divide the scores by ``sqrt(d_k)`` (True) or not.

    Returns
    -------
    float
        Close to a constant for every ``d_k`` when scaled; shrinking towards 0 as ``d_k``
        grows when not.

    Raises
    ------
    ValueError
        When ``d_k``, ``n_keys`` or ``n_samples`` is below 1.
    """
    if d_k < 1 or n_keys < 1 or n_samples < 1:
        raise ValueError(f"need d_k, n_keys, n_samples >= 1, got d_k={d_k}, n_keys={n_keys}, n_samples={n_samples}")
    q = rng.standard_normal((n_samples, d_k))
    K = rng.standard_normal((n_samples, n_keys, d_k))
    scores = (K @ q[:, :, None])[:, :, 0]  # (n_samples, n_keys, d_k) @ (n_samples, d_k, 1) -> (n_samples, n_keys)
    if scaled:
        scores = scores / math.sqrt(d_k)
    jacobians = softmax_jacobian(softmax(scores, axis=-1))  # (n_samples, n_keys, n_keys)
    norms = np.sqrt(np.sum(jacobians**2, axis=(-2, -1)))  # (n_samples,)
    return float(np.mean(norms))


def gradient_norm_table(
    d_ks, n_keys: int = DEFAULT_N_KEYS, n_samples: int = DEFAULT_N_SAMPLES, seed: int = 0
) -> np.ndarray:
    """Run :func:`softmax_gradient_norm` without and with scaling for several d_k.

    Every entry draws from a fresh ``np.random.default_rng(seed)``, so the two columns of
    a row see the same queries and keys and differ only by the scale.

    Parameters
    ----------
    d_ks : sequence of int
    n_keys, n_samples : int
    seed : int

    Returns
    -------
    numpy.ndarray, shape (len(d_ks), 3)
        Columns: d_k, mean ||J||_F without scaling, mean ||J||_F with scaling.
    """
    rows = [
        (d_k, *(softmax_gradient_norm(d_k, n_keys, n_samples, np.random.default_rng(seed), scaled) for scaled in (False, True)))
        for d_k in d_ks
    ]
    return np.array(rows, dtype=np.float64).reshape(len(rows), 3)  # (n_rows, 3)


def format_gradient_norm_table(table: np.ndarray) -> str:
    """Render a :func:`gradient_norm_table` result as aligned text."""
    lines = [f"{'d_k':>6}  {'||J||_F raw':>12}  {'||J||_F scaled':>14}"]
    lines += [f"{int(d_k):>6}  {raw:>12.4f}  {scaled:>14.4f}" for d_k, raw, scaled in table]
    return "\n".join(lines)
