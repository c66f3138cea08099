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
