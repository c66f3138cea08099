"""hw3: multi-head attention with explicit transposes, tensordot and np.where."""

from __future__ import annotations

import functools

import numpy as np


def _float(X):
    X = np.asarray(X)
    target = np.float32 if X.dtype == np.float32 else np.float64
    return np.array(X, dtype=target, copy=True)


def split_heads(X, num_heads: int) -> np.ndarray:
    X = _float(X)
    *lead, n, d_model = X.shape
    if not (num_heads > 0 and d_model % num_heads == 0):
        raise ValueError("num_heads does not divide d_model")
    d_head = d_model // num_heads
    lead = tuple(lead)
    blocks = X.reshape(lead + (n, num_heads, d_head))
    k = len(lead)
    axes = tuple(range(k)) + (k + 1, k, k + 2)  # (..., h, n, d_head)
    return np.transpose(blocks, axes)


def merge_heads(X) -> np.ndarray:
    X = _float(X)
    if X.ndim < 3:
        raise ValueError("merge_heads needs at least 3 dimensions")
    # Iterating over the first axis of the moved array gives one (..., n, d_head) block per head.
    return np.concatenate(tuple(np.moveaxis(X, -3, 0)), axis=-1)


def _project(X, W):
    return np.tensordot(X, W, axes=([X.ndim - 1], [0]))


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None) -> tuple[np.ndarray, np.ndarray]:
    arrays = [np.asarray(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o)]
    promoted = functools.reduce(np.promote_types, (a.dtype for a in arrays))
    dtype = np.float32 if promoted == np.float32 else np.float64
    X_q, X_kv, W_q, W_k, W_v, W_o = (np.asarray(a, dtype=dtype) for a in arrays)
    d_model = X_q.shape[-1]
    if not (num_heads > 0 and d_model % num_heads == 0):
        raise ValueError("num_heads does not divide d_model")
    d_head = d_model // num_heads

    Q = split_heads(_project(X_q, W_q) * (d_head ** -0.5), num_heads)  # pre-scaled queries
    K = split_heads(_project(X_kv, W_k), num_heads)
    V = split_heads(_project(X_kv, W_v), num_heads)
    scores = Q @ np.swapaxes(K, -1, -2)

    if mask is None:
        allowed = np.ones(scores.shape[-2:], dtype=bool)
    else:
        allowed = np.asarray(mask).astype(bool)
        while allowed.ndim < 2:
            allowed = allowed[np.newaxis]
    allowed = allowed.reshape(allowed.shape[:-2] + (1,) + allowed.shape[-2:])

    # Softmax over the allowed keys only; masked keys get exactly 0.
    with np.errstate(invalid="ignore", over="ignore"):
        row_max = np.where(allowed, scores, -np.inf).max(axis=-1, keepdims=True)
        e = np.where(allowed, np.exp(scores - row_max), 0)
        A = e / e.sum(axis=-1, keepdims=True)

    Z = A @ V
    Y = _project(merge_heads(Z), W_o)
    return Y, A
