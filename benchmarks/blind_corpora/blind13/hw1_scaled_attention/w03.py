r"""Assignment 1 · Scaled dot-product attention (缩放点积注意力).

The four functions below build, piece by piece,

.. math::

    \operatorname{Attention}(Q, K, V)
    = \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V

and measure why the scores are divided by :math:`\sqrt{d_k}`.

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
* Input validation is not required; the Raises sections describe what happens on
  inputs outside the contract.

中文 (简体)
-----------

作业 1 · 缩放点积注意力（Scaled dot-product attention）。

下面四个函数一块一块地搭建出

.. math::

    \operatorname{Attention}(Q, K, V)
    = \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V

并测量为什么分数要除以 :math:`\sqrt{d_k}`。各函数文档字符串的中文版在本作业的中文 notebook 里。

约定（本课程所有作业都相同）
----------------------------
* 形状写作 ``(..., L_q, d_k)``：``...`` 表示任意多个前导批量维度，也可以没有。不同参数的批量维度按
  numpy 的广播规则相互广播。
* float32 输入得到 float32 结果；其他所有输入（整数、列表、float64）都按 float64 计算。
* 掩码是布尔数组或 0/1 数组。True/1 表示*这个查询可以关注这个键*；False/0 表示不可以：该分数变为
  ``-inf``，其权重恰好为 0。
* 允许的 import：numpy、math、typing、functools、itertools、__future__、dataclasses。请写向量化的
  numpy 代码：不要对批量元素写 Python 循环。
* 不要求做输入检查；Raises 部分说明了超出约定的输入会发生什么。
"""

from __future__ import annotations

import math

import numpy as np


def softmax(x, axis: int = -1) -> np.ndarray:
    r"""Numerically stable softmax along one axis.

    .. math::

        \operatorname{softmax}(x)_i
        = \frac{\exp(x_i - m)}{\sum_j \exp(x_j - m)},
        \qquad m = \max_j x_j

    Subtracting the maximum :math:`m` leaves the result unchanged (the factor
    :math:`e^{-m}` cancels between numerator and denominator) but makes every
    exponent at most 0, so ``exp`` cannot overflow.

    Parameters
    ----------
    x : array_like, shape (..., n)
        Scores, with at least one dimension. Entries equal to ``-inf`` (masked
        scores) get weight exactly 0, provided their slice holds at least one
        finite entry.
    axis : int, default -1
        The axis to normalise over; negative values count from the end.

    Returns
    -------
    numpy.ndarray, same shape as ``x``
        Non-negative weights that sum to 1 along ``axis``: float32 for float32
        input, float64 otherwise. A slice that is entirely ``-inf`` has no
        softmax; its entries are NaN.

    Examples
    --------
    >>> softmax(np.array([0.5, 0.0, 0.0])).round(4)
    array([0.4519, 0.2741, 0.2741])
    """
    x = np.asarray(x)
    if x.dtype.kind == "f" and x.dtype != np.float32:
        x = x.astype(np.float64)  # float16 etc.; integers become floats in np.exp anyway
    m = np.max(x, axis=axis, keepdims=True)
    with np.errstate(invalid="ignore"):
        e = np.exp(x - m)
        return e / np.sum(e, axis=axis, keepdims=True)


def causal_mask(n: int) -> np.ndarray:
    r"""Causal mask: each position may look at itself and the positions before it.

    .. math::

        M_{ij} =
        \begin{cases}
            \text{True}  & \text{if } j \le i \\
            \text{False} & \text{if } j > i
        \end{cases}

    Row ``i`` is the query, column ``j`` the key: the lower triangle, diagonal
    included. A decoder uses it so that no position can peek at the future.

    Parameters
    ----------
    n : int
        Sequence length, at least 1. A bool is not a length: ``causal_mask(True)`` is
        outside the contract, so no test passes one.

    Returns
    -------
    numpy.ndarray of bool, shape (n, n)
        ``mask[i, j]`` is True exactly when ``j <= i``.

    Raises
    ------
    ValueError
        When ``n`` is not a positive integer (a bool included); like all input
        validation, this is not graded.
    """
    return np.tril(np.ones((n, n), dtype=bool))


def scaled_dot_product_attention(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    r"""Attend from every query to every allowed key.

    .. math::

        A = \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right),
        \qquad Z = A V

    Four steps: the scores :math:`S = Q K^\top`, scaling by :math:`1/\sqrt{d_k}`,
    a softmax over the keys (so each query's weights sum to 1), and the weighted
    sum of the values.

    Parameters
    ----------
    Q : array_like, shape (..., L_q, d_k)
        Queries, one row per query position.
    K : array_like, shape (..., L_k, d_k)
        Keys, one row per key position; same ``d_k`` as ``Q``.
    V : array_like, shape (..., L_k, d_v)
        Values, one row per key position.
    mask : array_like of bool or 0/1, broadcastable to (..., L_q, L_k), optional
        True/1 where the query may attend to the key. Disallowed positions get
        weight exactly 0. A query row with no allowed key is undefined (its
        weights are NaN). None (the default) allows every key.

    Returns
    -------
    Z : numpy.ndarray, shape (..., L_q, d_v)
        The outputs ``A @ V``: row ``i`` is a weighted average of the values.
    A : numpy.ndarray, shape (..., L_q, L_k)
        The attention weights; every row sums to 1.

    Raises
    ------
    ValueError
        When the shapes do not fit together (``Q`` and ``K`` disagree on ``d_k``,
        ``K`` and ``V`` on ``L_k``, or the batch dimensions do not broadcast).
    """
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    dtype = np.result_type(Q, K, V)
    if dtype != np.float32:
        dtype = np.float64
    Q, K, V = Q.astype(dtype), K.astype(dtype), V.astype(dtype)
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_k)  # (..., L_q, L_k)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    A = softmax(scores, axis=-1)
    Z = A @ V  # (..., L_q, d_v)
    return Z, A


def dot_product_variance(d_k: int, n_samples: int, rng: np.random.Generator) -> tuple[float, float]:
    r"""Estimate :math:`\operatorname{Var}(q \cdot k)` with and without the :math:`1/\sqrt{d_k}` scaling.

    For :math:`q, k` with independent standard normal entries,

    .. math::

        \mathbb{E}[q \cdot k] = 0, \qquad
        \operatorname{Var}(q \cdot k) = d_k, \qquad
        \operatorname{Var}\!\left(\frac{q \cdot k}{\sqrt{d_k}}\right) = 1 .

    This function checks both claims by sampling ``n_samples`` pairs.

    The draw order is part of the contract, so that results are reproducible:
    first ``q = rng.standard_normal((n_samples, d_k))``, then
    ``k = rng.standard_normal((n_samples, d_k))``, nothing else. The variances
    are ``np.var`` (``ddof=0``) of the ``n_samples`` dot products ``q_i . k_i``
    and of the same dot products divided by ``sqrt(d_k)``. Since the mean of
    ``q . k`` is known to be 0, the unbiased variance (``ddof=1``) and the mean of
    the squares estimate the same thing and are accepted too.

    Parameters
    ----------
    d_k : int
        Dimension of the vectors, at least 1.
    n_samples : int
        Number of (q, k) pairs, at least 2.
    rng : numpy.random.Generator
        Source of the random numbers, e.g. ``np.random.default_rng(0)``.

    Returns
    -------
    var_raw : float
        Sample variance of ``q . k``; close to ``d_k``.
    var_scaled : float
        Sample variance of ``q . k / sqrt(d_k)``; close to 1.

    Raises
    ------
    ValueError
        When ``d_k < 1`` or ``n_samples < 2``.
    """
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.sum(q * k, axis=-1)  # (n_samples,)
    var_raw = float(np.var(dots))
    var_scaled = float(np.var(dots / math.sqrt(d_k)))
    return var_raw, var_scaled
