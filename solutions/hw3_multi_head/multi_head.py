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
    ### BEGIN SOLUTION
    X = np.asarray(X)
    if X.dtype != np.float32:
        X = X.astype(np.float64)  # float32 stays float32; everything else is float64
    d_model = X.shape[-1]
    if num_heads < 1 or d_model % num_heads != 0:
        raise ValueError(f"num_heads={num_heads} must be positive and divide d_model={d_model}")
    d_head = d_model // num_heads

    # Cut the feature axis into num_heads consecutive blocks of d_head features ...
    blocks = X.reshape(X.shape[:-1] + (num_heads, d_head))  # (..., n, d_model) -> (..., n, h, d_head)
    # ... then put the head axis in front of the positions.
    return np.moveaxis(blocks, -2, -3)  # (..., n, h, d_head) -> (..., h, n, d_head)
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    X = np.asarray(X)
    if X.dtype != np.float32:
        X = X.astype(np.float64)  # float32 stays float32; everything else is float64
    *batch, num_heads, n, d_head = X.shape  # ValueError when X.ndim < 3

    # Put the positions back in front of the heads ...
    per_position = np.moveaxis(X, -3, -2)  # (..., h, n, d_head) -> (..., n, h, d_head)
    # ... then lay the heads' blocks side by side along the feature axis.
    return per_position.reshape(*batch, n, num_heads * d_head)  # (..., n, h, d_head) -> (..., n, d_model)
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    arrays = (np.asarray(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o))
    # float32 stays float32; everything else is computed in float64.
    X_q, X_kv, W_q, W_k, W_v, W_o = (a if a.dtype == np.float32 else a.astype(np.float64) for a in arrays)

    def attend_per_head(Q, K, V, allowed):
        """Scaled dot-product attention, all heads at once (the head axis is a batch axis)."""
        d_head = Q.shape[-1]
        K_T = np.swapaxes(K, -1, -2)  # (..., h, n_kv, d_head) -> (..., h, d_head, n_kv)
        scores = Q @ K_T / math.sqrt(d_head)  # (..., h, n_q, n_kv)
        if allowed is not None:
            scores = np.where(allowed, scores, -np.inf)  # (..., h, n_q, n_kv)
        # Stable softmax over the keys; a row with no allowed key is NaN (undefined).
        with np.errstate(invalid="ignore"):
            exps = np.exp(scores - np.max(scores, axis=-1, keepdims=True))  # (..., h, n_q, n_kv)
            weights = exps / np.sum(exps, axis=-1, keepdims=True)  # (..., h, n_q, n_kv)
        return weights @ V, weights  # (..., h, n_q, d_head), (..., h, n_q, n_kv)

    # 1. Project the inputs, then give every head its own d_head-wide slice.
    Q = split_heads(X_q @ W_q, num_heads)  # (..., n_q, d_model) -> (..., h, n_q, d_head)
    K = split_heads(X_kv @ W_k, num_heads)  # (..., n_kv, d_model) -> (..., h, n_kv, d_head)
    V = split_heads(X_kv @ W_v, num_heads)  # (..., n_kv, d_model) -> (..., h, n_kv, d_head)

    # 2. One mask for all heads: a head axis of length 1 broadcasts over the h heads.
    allowed = None
    if mask is not None:
        allowed = np.atleast_2d(np.asarray(mask).astype(bool))  # (n_kv,) -> (1, n_kv); (..., n_q, n_kv) unchanged
        allowed = allowed[..., None, :, :]  # (..., n_q, n_kv) -> (..., 1, n_q, n_kv)

    # 3. Attention inside each head, independently of the others.
    Z, A = attend_per_head(Q, K, V, allowed)  # (..., h, n_q, d_head), (..., h, n_q, n_kv)

    # 4. Concatenate the heads and let W_o mix them.
    Y = merge_heads(Z) @ W_o  # (..., h, n_q, d_head) -> (..., n_q, d_model) -> (..., n_q, d_model)
    return Y, A
    ### END SOLUTION
