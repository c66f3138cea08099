# hw3: your work goes in this file. Replace each `raise NotImplementedError(...)` with your code.
r"""Assignment 3 · Multi-head attention (多头注意力).

Instead of one attention over the whole model dimension, multi-head attention runs
``h`` smaller attentions side by side, each on its own slice of the features, and
mixes their results with an output projection:

.. math::

    \operatorname{MultiHead}(X_q, X_{kv})
    = \operatorname{Concat}(\text{head}_1, \dots, \text{head}_h)\, W_o,
    \qquad
    \text{head}_i = \operatorname{softmax}\!\left(
        \frac{Q_i K_i^\top}{\sqrt{d_\text{head}}}\right) V_i

with :math:`Q = X_q W_q`, :math:`K = X_{kv} W_k`, :math:`V = X_{kv} W_v`,
:math:`Q_i, K_i, V_i` their ``i``-th slices of ``d_head = d_model / h`` columns.

You implement the split into heads, the merge back, and the whole layer.

Conventions (the same in every assignment of the course)
--------------------------------------------------------
* Shapes are written ``(..., n, d_model)``: ``...`` stands for any number of leading
  batch dimensions, including none. ``h`` is ``num_heads`` and ``d_head`` is
  ``d_model // num_heads``.
* Projections are applied as ``X @ W`` (features in rows, as in the Transformer
  paper). This is a switch from Assignment 2, which wrote ``W_a s`` for a column
  vector ``s``: there a weight of shape ``(d_a, d_s)`` multiplies from the left,
  here ``W`` of shape ``(d_model, d_model)`` multiplies from the right. ``X @ W.T``
  (PyTorch's ``nn.Linear`` convention) is a different, wrong layer here.
* float32 inputs give float32 results; every other input (integers, lists, float64)
  is computed in float64.
* A mask is a boolean or 0/1 array. True/1 means *this query may attend to this
  key*; False/0 means it may not: that score becomes ``-inf`` and its weight is
  exactly 0. The same mask applies to every head.
* Allowed imports: numpy, math, typing, functools, itertools, __future__,
  dataclasses. This module cannot import Assignment 1: write the per-head
  attention yourself, inside :func:`multi_head_attention`. Write vectorised numpy:
  no Python loop over the heads.
* Input validation is not required; the Raises sections describe what happens on
  inputs outside the contract.

中文 (简体)
-----------

作业 3 · 多头注意力（Multi-head attention）。

多头注意力不是在整个模型维度上做一个注意力，而是并排运行 ``h`` 个较小的注意力，每个只作用于特征的一段
切片，再用一个输出投影把它们的结果混合起来：

.. math::

    \operatorname{MultiHead}(X_q, X_{kv})
    = \operatorname{Concat}(\text{head}_1, \dots, \text{head}_h)\, W_o,
    \qquad
    \text{head}_i = \operatorname{softmax}\!\left(
        \frac{Q_i K_i^\top}{\sqrt{d_\text{head}}}\right) V_i

其中 :math:`Q = X_q W_q`，:math:`K = X_{kv} W_k`，:math:`V = X_{kv} W_v`，
:math:`Q_i, K_i, V_i` 是它们各自的第 ``i`` 段切片，每段 ``d_head = d_model / h`` 列。

你要实现拆分成多个头、合并回来，以及整个层。各函数文档字符串的中文版在本作业的中文 notebook 里。

约定（本课程所有作业都相同）
----------------------------
* 形状写作 ``(..., n, d_model)``：``...`` 表示任意多个前导批量维度，也可以没有。``h`` 即
  ``num_heads``，``d_head`` 即 ``d_model // num_heads``。
* 投影写作 ``X @ W``（特征按行存放，与 Transformer 论文一致）。这与作业 2 不同：作业 2 对列向量 ``s``
  写 ``W_a s``，形状为 ``(d_a, d_s)`` 的权重从左边乘；这里形状为 ``(d_model, d_model)`` 的 ``W`` 从右边乘。
  ``X @ W.T``（PyTorch 的 ``nn.Linear`` 的约定）在这里是另一个错误的层。
* float32 输入得到 float32 结果；其他所有输入（整数、列表、float64）都按 float64 计算。
* 掩码是布尔数组或 0/1 数组。True/1 表示*这个查询可以关注这个键*；False/0 表示不可以：该分数变为
  ``-inf``，其权重恰好为 0。同一个掩码作用于每个头。
* 允许的 import：numpy、math、typing、functools、itertools、__future__、dataclasses。本模块不能
  import 作业 1：每个头的注意力要你自己写在 :func:`multi_head_attention` 里面。请写向量化的 numpy
  代码：不要对头写 Python 循环。
* 不要求做输入检查；Raises 部分说明了超出约定的输入会发生什么。
"""

from __future__ import annotations

import math

import numpy as np


def split_heads(X, num_heads: int) -> np.ndarray:
    r"""Give each head its own slice of the model dimension.

    .. math::

        \text{out}[\dots, i, t, :] = X[\dots, t,\; i\,d_\text{head} : (i+1)\,d_\text{head}]

    Head ``i`` gets features ``i * d_head`` to ``(i + 1) * d_head - 1`` of every
    position ``t``, where ``d_head = d_model // num_heads``. The head axis comes
    before the position axis, so each head looks like an ordinary
    ``(n, d_head)`` sequence.

    Parameters
    ----------
    X : array_like, shape (..., n, d_model)
        A sequence of ``n`` feature vectors (usually already projected).
    num_heads : int
        Number of heads ``h``; must divide ``d_model``.

    Returns
    -------
    numpy.ndarray, shape (..., num_heads, n, d_model // num_heads)
        The per-head slices.

    Raises
    ------
    ValueError
        When ``num_heads`` is not positive or does not divide ``d_model``.
    """
    raise NotImplementedError("split_heads: not implemented yet (hw3, question 1)")


def merge_heads(X) -> np.ndarray:
    r"""Concatenate the heads' features again: the exact inverse of :func:`split_heads`.

    .. math::

        \text{out}[\dots, t, :] = \big[\, X[\dots, 0, t, :];\; X[\dots, 1, t, :];\;
        \dots;\; X[\dots, h-1, t, :] \,\big]

    ``merge_heads(split_heads(X, h))`` equals ``X`` for every ``h`` that divides
    ``d_model``.

    Parameters
    ----------
    X : array_like, shape (..., num_heads, n, d_head)
        One ``(n, d_head)`` sequence per head.

    Returns
    -------
    numpy.ndarray, shape (..., n, num_heads * d_head)
        For every position, the heads' features one after the other.

    Raises
    ------
    ValueError
        When ``X`` has fewer than 3 dimensions.
    """
    raise NotImplementedError("merge_heads: not implemented yet (hw3, question 2)")


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None) -> tuple[np.ndarray, np.ndarray]:
    r"""Project, split into heads, attend within each head, merge, project out.

    .. math::

        Y = \operatorname{merge}\Big(\operatorname{softmax}\!\Big(
            \frac{Q_h K_h^\top}{\sqrt{d_\text{head}}}\Big) V_h\Big)\, W_o,
        \qquad
        Q_h = \operatorname{split}(X_q W_q),\;
        K_h = \operatorname{split}(X_{kv} W_k),\;
        V_h = \operatorname{split}(X_{kv} W_v)

    Every head scales its scores by :math:`\sqrt{d_\text{head}}` with
    ``d_head = d_model // num_heads`` (not by :math:`\sqrt{d_\text{model}}`).

    Parameters
    ----------
    X_q : array_like, shape (..., n_q, d_model)
        The sequence the queries come from.
    X_kv : array_like, shape (..., n_kv, d_model)
        The sequence the keys and values come from (``X_q`` itself for
        self-attention).
    W_q, W_k, W_v, W_o : array_like, shape (d_model, d_model)
        Query, key, value and output projections, applied as ``X @ W``.
    num_heads : int
        Number of heads ``h``; must divide ``d_model``.
    mask : array_like of bool or 0/1, broadcastable to (..., n_q, n_kv), optional
        True/1 where the query may attend to the key; applied to every head (a
        head axis is inserted in front of its last two axes). A 1-D mask of shape
        ``(n_kv,)`` applies to every query. None (the default) allows every key.

    Returns
    -------
    Y : numpy.ndarray, shape (..., n_q, d_model)
        The layer's output.
    A : numpy.ndarray, shape (..., num_heads, n_q, n_kv)
        Each head's attention weights; every row sums to 1.

    Raises
    ------
    ValueError
        When ``num_heads`` does not divide ``d_model``, or the shapes of the
        arguments do not fit the products above.
    """
    raise NotImplementedError("multi_head_attention: not implemented yet (hw3, question 3)")
