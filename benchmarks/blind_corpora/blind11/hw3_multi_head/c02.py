"""hw3 multi-head attention: np.split/np.stack, explicit transposes, masked max and exponentials via where=."""

from __future__ import annotations

import math

import numpy as np


def _to_float(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else np.asarray(a, dtype=np.float64)


def split_heads(X, num_heads: int) -> np.ndarray:
    X = _to_float(X)
    if not num_heads > 0:
        raise ValueError("num_heads must be positive")
    if X.shape[-1] % num_heads != 0:
        raise ValueError("num_heads must divide d_model")
    return np.stack(np.split(X, num_heads, axis=-1), axis=-3)


def merge_heads(X) -> np.ndarray:
    X = _to_float(X)
    if X.ndim < 3:
        raise ValueError("merge_heads expects at least 3 dimensions")
    axes = list(range(X.ndim))
    axes[-3], axes[-2] = axes[-2], axes[-3]
    moved = np.transpose(X, axes)  # (..., n, h, d_head)
    h, d_head = moved.shape[-2], moved.shape[-1]
    return moved.reshape(*moved.shape[:-2], h * d_head)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None) -> tuple[np.ndarray, np.ndarray]:
    inputs = [np.asarray(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o)]
    single = all(a.dtype == np.float32 for a in inputs)
    dtype = np.float32 if single else np.float64
    X_q, X_kv, W_q, W_k, W_v, W_o = (np.asarray(a, dtype=dtype) for a in inputs)
    d_model = X_q.shape[-1]
    if num_heads <= 0 or d_model % num_heads:
        raise ValueError("num_heads must divide d_model")
    d_head = d_model // num_heads

    Q = split_heads(np.matmul(X_q, W_q), num_heads) * dtype(1.0 / math.sqrt(d_head))  # pre-scaled queries
    K = split_heads(np.matmul(X_kv, W_k), num_heads)
    V = split_heads(np.matmul(X_kv, W_v), num_heads)
    scores = np.matmul(Q, np.swapaxes(K, -2, -1))  # (..., h, n_q, n_kv)

    if mask is None:
        allowed = np.ones((1, 1), dtype=bool)
    else:
        allowed = np.atleast_2d(np.asarray(mask).astype(bool))
    allowed = allowed.reshape(allowed.shape[:-2] + (1,) + allowed.shape[-2:])
    allowed = np.broadcast_to(allowed, np.broadcast_shapes(allowed.shape, scores.shape))
    scores = np.broadcast_to(scores, allowed.shape)

    row_max = np.max(scores, axis=-1, keepdims=True, where=allowed, initial=-np.inf)
    with np.errstate(invalid="ignore"):
        e = np.exp(scores - row_max, where=allowed, out=np.zeros(allowed.shape, dtype=dtype))
        A = e / np.sum(e, axis=-1, keepdims=True)
    Y = np.matmul(merge_heads(np.matmul(A, V)), W_o)
    return Y, A
