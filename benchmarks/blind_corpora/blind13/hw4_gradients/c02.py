# hw4: student submission.
r"""Assignment 4 · Why we scale, measured in gradients (为什么要缩放：用梯度来衡量).

Training moves every parameter against the gradient of a loss ``L``. Here you write the
backward passes of softmax and of scaled dot-product attention by hand, check them
against centred differences, and measure what the :math:`1/\sqrt{d_k}` scale does to
the gradient that flows back through the softmax.

Notation: ``dX`` is the gradient of the (scalar) loss with respect to ``X``,
``dX = dL/dX``, an array of the same shape as ``X``.

Conventions (the same in every assignment of the course)
--------------------------------------------------------
* Shapes are written ``(..., L_q, d_k)``: ``...`` stands for any number of leading
  batch dimensions, including none. Batch dimensions of different arguments
  broadcast against each other the way numpy broadcasting does.
* float32 inputs give float32 results; every other input (integers, lists, float64)
  is computed in float64.
* A mask is a boolean or 0/1 array. True/1 means *this query may attend to this
  key*; False/0 means it may not: that score becomes ``-inf`` and its weight is
  exactly 0.
* Allowed imports: numpy, math, typing, functools, itertools, __future__,
  dataclasses. Write vectorised numpy: no Python loops over batch elements.
* Input validation is not required.

Given, already implemented and not graded: :func:`softmax` and
:func:`scaled_dot_product_attention` (the forward pass of Assignment 1),
:func:`numerical_gradient` and :func:`relative_error` (the gradient check), and
:func:`sum_to_shape` (undoing broadcasting in a backward pass).

中文 (简体)
-----------

作业 4 · 为什么要缩放：用梯度来衡量。

训练让每个参数沿损失 ``L`` 的梯度的反方向移动。在这里，你要亲手写出 softmax 和缩放点积注意力的反向传播，
用中心差分检验它们，并测量 :math:`1/\sqrt{d_k}` 缩放对反向流过 softmax 的梯度有什么影响。

记号：``dX`` 是（标量）损失关于 ``X`` 的梯度，``dX = dL/dX``，是一个与 ``X`` 形状相同的数组。

约定（本课程所有作业都相同）
----------------------------
* 形状写作 ``(..., L_q, d_k)``：``...`` 表示任意多个前导批量维度，也可以没有。不同参数的批量维度按
  numpy 的广播规则相互广播。
* float32 输入得到 float32 结果；其他所有输入（整数、列表、float64）都按 float64 计算。
* 掩码是布尔数组或 0/1 数组。True/1 表示*这个查询可以关注这个键*；False/0 表示不可以：该分数变为
  ``-inf``，其权重恰好为 0。
* 允许的 import：numpy、math、typing、functools、itertools、__future__、dataclasses。请写向量化的
  numpy 代码：不要对批量元素写 Python 循环。
* 不要求做输入检查。

已给出、已实现且不评分的函数：:func:`softmax` 和 :func:`scaled_dot_product_attention`
（作业 1 的前向传播），:func:`numerical_gradient` 和 :func:`relative_error`（梯度检验），
以及 :func:`sum_to_shape`（在反向传播中撤销广播）。各函数文档字符串的中文版在本作业的中文 notebook 里。
"""

from __future__ import annotations

import math

import numpy as np


def softmax(x, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis`` (given: Assignment 1, question 1).

    Parameters
    ----------
    x : array_like, shape (..., n)
        Scores; ``-inf`` entries get weight exactly 0.
    axis : int, default -1

    Returns
    -------
    numpy.ndarray, same shape as ``x``
        Weights summing to 1 along ``axis``.
    """
    values = np.asarray(x)
    values = values if values.dtype == np.float32 else values.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):  # a row of only -inf is NaN, silently
        unnormalised = np.exp(values - values.max(axis=axis, keepdims=True))
        return unnormalised / unnormalised.sum(axis=axis, keepdims=True)


def scaled_dot_product_attention(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """The forward pass ``Z = softmax(mask(Q K^T / sqrt(d_k))) V`` (given: Assignment 1, question 3).

    Parameters
    ----------
    Q : array_like, shape (..., L_q, d_k)
    K : array_like, shape (..., L_k, d_k)
    V : array_like, shape (..., L_k, d_v)
    mask : array_like of bool or 0/1, broadcastable to (..., L_q, L_k), optional
        True/1 where the query may attend to the key.

    Returns
    -------
    Z : numpy.ndarray, shape (..., L_q, d_v)
    A : numpy.ndarray, shape (..., L_q, L_k)
        The attention weights; a row with no allowed key is NaN.
    """
    Q, K, V = (np.asarray(m) for m in (Q, K, V))
    Q, K, V = (m if m.dtype == np.float32 else m.astype(np.float64) for m in (Q, K, V))
    logits = np.matmul(Q, np.swapaxes(K, -2, -1)) / math.sqrt(Q.shape[-1])  # (..., L_q, L_k)
    if mask is not None:
        logits = np.where(np.asarray(mask) != 0, logits, -np.inf)  # (..., L_q, L_k)
    weights = softmax(logits)  # (..., L_q, L_k)
    return np.matmul(weights, V), weights  # (..., L_q, d_v), (..., L_q, L_k)


def numerical_gradient(f, x, eps: float = 1e-5) -> np.ndarray:
    r"""Gradient of a scalar function by centred differences (given).

    .. math::

        g_i = \frac{f(x + \varepsilon e_i) - f(x - \varepsilon e_i)}{2 \varepsilon}

    The error is about ``eps**2`` (truncation) plus ``1e-16 * |f| / eps`` (rounding):
    about ``1e-10`` for values of order 1 and the default ``eps``.

    Parameters
    ----------
    f : callable
        ``f(x)`` returns one number. It gets a fresh float64 copy of ``x`` each time.
    x : array_like
        The point, any shape; it is not modified.
    eps : float, default 1e-5
        The step.

    Returns
    -------
    numpy.ndarray of float64, shape of ``x``
    """
    center = np.array(x, dtype=np.float64)
    grad = np.zeros_like(center)
    for position in np.ndindex(*center.shape):
        step = np.zeros_like(center)
        step[position] = eps
        grad[position] = (float(f(center + step)) - float(f(center - step))) / (2 * eps)
    return grad


def relative_error(a, b) -> float:
    r"""CS231n's relative error between two arrays of the same shape (given).

    .. math::

        \max_i \frac{|a_i - b_i|}{\max(|a_i| + |b_i|,\ 10^{-8})}

    Rules of thumb for a float64 gradient check: below ``1e-7`` the gradient is right;
    around ``1e-4`` something is off; above ``1e-2`` it is wrong.

    Parameters
    ----------
    a, b : array_like, same shape

    Returns
    -------
    float
    """
    first, second = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if first.size == 0:
        return 0.0
    gap = np.abs(first - second)
    return float((gap / np.maximum(np.abs(first) + np.abs(second), 1e-8)).max())


def sum_to_shape(gradient, shape: tuple) -> np.ndarray:
    """Undo broadcasting in a backward pass (given).

    When the forward pass broadcast an input of shape ``shape`` (a missing leading
    dimension, or a dimension of size 1 stretched), each of its entries was used several
    times, and its gradient is the sum of the gradients of every use.

    Parameters
    ----------
    gradient : array_like
        A gradient with the broadcast shape.
    shape : tuple of int
        The shape of the input the gradient belongs to.

    Returns
    -------
    numpy.ndarray, shape ``shape``

    Examples
    --------
    >>> sum_to_shape(np.ones((2, 3, 4)), (1, 4))
    array([[6., 6., 6., 6.]])
    """
    total = np.asarray(gradient)
    while total.ndim > len(shape):
        total = total.sum(axis=0)  # a leading dimension the input did not have
    for axis, size in enumerate(shape):
        if size == 1 and total.shape[axis] != 1:
            total = total.sum(axis=axis, keepdims=True)  # a size-1 dimension that was stretched
    return total


def softmax_backward(A, dA, axis: int = -1) -> np.ndarray:
    r"""Backward pass of softmax: ``dS`` from the weights ``A`` and the upstream gradient ``dA``.

    For ``A = softmax(S)`` along ``axis``, the Jacobian of one slice is
    :math:`J = \operatorname{diag}(a) - a a^\top` (symmetric), so

    .. math::

        dS = J^\top dA = A \odot \Big(dA - \sum_j dA_j\, A_j\Big),

    with the sum along ``axis``. Do not build ``J``: one multiplication, one sum and one
    subtraction give the same result for every slice at once.

    Parameters
    ----------
    A : array_like, shape (..., n)
        Softmax weights (they sum to 1 along ``axis``).
    dA : array_like, same shape as ``A``
        Gradient of the loss with respect to ``A``.
    axis : int, default -1
        The axis the softmax normalised over.

    Returns
    -------
    numpy.ndarray, same shape as ``A``
        ``dS``, the gradient with respect to the softmax's input. A weight of exactly
        0 gets a gradient of exactly 0.

    Examples
    --------
    >>> softmax_backward(np.array([0.5, 0.25, 0.25]), np.array([1.0, 0.0, 0.0]))
    array([ 0.25 , -0.125, -0.125])
    """
    # explicit dtype choice, the weighted sum as a batched matrix product, np.where for exact zeros
    A = np.asarray(A)
    dA = np.asarray(dA)
    dtype = np.float32 if (A.dtype == np.float32 and dA.dtype == np.float32) else np.float64
    A = A.astype(dtype, copy=False)
    dA = dA.astype(dtype, copy=False)
    a = np.swapaxes(A, axis, -1)
    g = np.swapaxes(dA, axis, -1)
    inner = np.matmul(g[..., np.newaxis, :], a[..., :, np.newaxis])[..., 0]  # (..., 1): <dA, A>
    dS = np.where(a == 0, np.zeros((), dtype=dtype), a * (g - inner))
    return np.swapaxes(dS, axis, -1)


def scaled_dot_product_attention_backward(Q, K, V, A, dZ, mask=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Backward pass of scaled dot-product attention: ``dQ, dK, dV`` from ``dZ``.

    Forward: :math:`S = Q K^\top / \sqrt{d_k}`, masked scores :math:`-\infty`,
    :math:`A = \operatorname{softmax}(S)` over the keys, :math:`Z = A V`. Backward:

    .. math::

        dV = A^\top dZ, \qquad dA = dZ\, V^\top, \qquad
        dS = \operatorname{softmax\_backward}(A, dA), \qquad
        dQ = \frac{dS\, K}{\sqrt{d_k}}, \qquad dK = \frac{dS^\top Q}{\sqrt{d_k}} .

    Masked positions get exactly zero gradient: set ``A`` to 0 wherever the mask is
    False first (a row with no allowed key may hold NaN, or uniform weights from a
    forward pass that filled masked scores with -1e9).

    Parameters
    ----------
    Q : array_like, shape (..., L_q, d_k)
    K : array_like, shape (..., L_k, d_k)
    V : array_like, shape (..., L_k, d_v)
    A : array_like, shape (..., L_q, L_k)
        The weights of the forward pass.
    dZ : array_like, shape (..., L_q, d_v)
        Gradient of the loss with respect to the output ``Z``.
    mask : array_like of bool or 0/1, broadcastable to (..., L_q, L_k), optional
        The forward pass's mask: True/1 where the query may attend to the key.

    Returns
    -------
    dQ, dK, dV : numpy.ndarray
        Shaped like ``Q``, ``K`` and ``V``: where an input's batch dimension was
        broadcast (missing, or of size 1), its gradient is summed over it (:func:`sum_to_shape`).
    """
    # explicit dtype choice, np.where for the mask, every product as a loop of rank-1 updates
    arrays = [np.asarray(m) for m in (Q, K, V, A, dZ)]
    dtype = np.result_type(*[np.float32 if m.dtype == np.float32 else np.float64 for m in arrays])
    Q, K, V, A, dZ = (m.astype(dtype, copy=False) for m in arrays)
    zero = dtype.type(0)
    if mask is not None:
        blocked = np.logical_not(np.asarray(mask))
        A = np.where(blocked, zero, A)

    def accumulate(terms):
        total = None
        for term in terms:
            total = term if total is None else total + term
        return total

    L_q, L_k, d_v = A.shape[-2], A.shape[-1], dZ.shape[-1]
    # dV[k, v] = sum_q A[q, k] dZ[q, v]
    dV = accumulate(A[..., q, :, np.newaxis] * dZ[..., q, np.newaxis, :] for q in range(L_q))
    # dA[q, k] = sum_v dZ[q, v] V[k, v]
    dA = accumulate(dZ[..., :, v, np.newaxis] * V[..., np.newaxis, :, v] for v in range(d_v))
    dS = softmax_backward(A, dA)
    if mask is not None:
        dS = np.where(blocked, zero, dS)
    dS = dS / dtype.type(math.sqrt(Q.shape[-1]))
    # dQ[q, d] = sum_k dS[q, k] K[k, d];  dK[k, d] = sum_q dS[q, k] Q[q, d]
    dQ = accumulate(dS[..., :, k, np.newaxis] * K[..., k, np.newaxis, :] for k in range(L_k))
    dK = accumulate(dS[..., q, :, np.newaxis] * Q[..., q, np.newaxis, :] for q in range(L_q))
    return sum_to_shape(dQ, Q.shape), sum_to_shape(dK, K.shape), sum_to_shape(dV, V.shape)


def softmax_gradient_norm(d_k: int, n_keys: int, n_samples: int, rng: np.random.Generator, scaled: bool = True) -> float:
    r"""Mean Frobenius norm of the softmax Jacobian for a random query against random keys.

    For one sample, score a query :math:`q \in \mathbb{R}^{d_k}` against ``n_keys`` keys
    (the rows of :math:`K`), with or without the scale:

    .. math::

        t = \frac{K q}{\sqrt{d_k}} \ \text{(scaled)} \quad \text{or} \quad t = K q,
        \qquad a = \operatorname{softmax}(t), \qquad
        J = \operatorname{diag}(a) - a a^\top, \qquad
        \|J\|_F = \sqrt{\textstyle\sum_{i,j} J_{ij}^2} .

    Return the mean of :math:`\|J\|_F` over ``n_samples`` samples.

    The draw order is part of the contract, so that results are reproducible: first
    ``q = rng.standard_normal((n_samples, d_k))``, then
    ``K = rng.standard_normal((n_samples, n_keys, d_k))``, nothing else. Sample ``s``
    uses ``q[s]`` and ``K[s]``.

    Parameters
    ----------
    d_k : int
        Dimension of the query and the keys, at least 1.
    n_keys : int
        Number of keys per query, at least 1.
    n_samples : int
        Number of queries, at least 1.
    rng : numpy.random.Generator
        Source of the random numbers, e.g. ``np.random.default_rng(0)``.
    scaled : bool, default True
        Divide the scores by ``sqrt(d_k)``.

    Returns
    -------
    float
        The mean norm, between 0 and 1.
    """
    # one sample at a time: np.diag, np.outer and the 'fro' norm of each Jacobian
    q = rng.standard_normal((n_samples, d_k))
    K = rng.standard_normal((n_samples, n_keys, d_k))
    total = 0.0
    for s in range(n_samples):
        t = K[s] @ q[s]
        if scaled:
            t = t / math.sqrt(d_k)
        a = np.exp(t - t.max())
        a = a / a.sum()
        J = np.diag(a) - np.outer(a, a)
        total += float(np.linalg.norm(J, "fro"))
    return total / n_samples
