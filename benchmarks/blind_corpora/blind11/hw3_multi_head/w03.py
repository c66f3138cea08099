"""hw3 multi-head attention: a correct reference written blind from the docstrings."""

from __future__ import annotations

import math

import numpy as np


def _as_float(X) -> np.ndarray:
    """float32 stays float32; everything else (ints, bools, lists, float64) becomes float64."""
    X = np.asarray(X)
    if X.dtype == np.float32:
        return X
    return X.astype(np.float64)


def split_heads(X, num_heads: int) -> np.ndarray:
    X = _as_float(X)
    d_model = X.shape[-1]
    assert d_model % num_heads == 0, "num_heads must divide d_model"
    d_head = d_model // num_heads
    Y = X.reshape(X.shape[:-1] + (num_heads, d_head))  # (..., n, h, d_head)
    return np.swapaxes(Y, -3, -2)  # (..., h, n, d_head)


def merge_heads(X) -> np.ndarray:
    X = _as_float(X)
    if X.ndim < 3:
        raise ValueError("merge_heads needs an array of shape (..., num_heads, n, d_head)")
    Y = np.swapaxes(X, -3, -2)  # (..., n, h, d_head)
    return Y.reshape(Y.shape[:-2] + (Y.shape[-2] * Y.shape[-1],))


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None) -> tuple[np.ndarray, np.ndarray]:
    arrays = [np.asarray(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o)]
    dtype = np.float32 if np.result_type(*arrays) == np.float32 else np.float64
    X_q, X_kv, W_q, W_k, W_v, W_o = (a.astype(dtype, copy=False) for a in arrays)
    d_model = X_q.shape[-1]
    if num_heads <= 0 or d_model % num_heads != 0:
        raise ValueError(f"num_heads={num_heads} must be positive and divide d_model={d_model}")
    d_head = d_model // num_heads

    Q = split_heads(X_q @ W_q, num_heads)  # (..., h, n_q, d_head)
    K = split_heads(X_kv @ W_k, num_heads)  # (..., h, n_kv, d_head)
    V = split_heads(X_kv @ W_v, num_heads)  # (..., h, n_kv, d_head)

    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_head)  # (..., h, n_q, n_kv)
    if mask is not None:
        allowed = np.asarray(mask).astype(bool)
        if allowed.ndim == 1:
            allowed = allowed[None, :]  # (1, n_kv): the same keys for every query
        allowed = allowed[..., None, :, :]  # head axis in front of the last two
        scores = np.where(allowed, scores, -np.inf)

    shifted = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    A = e / e.sum(axis=-1, keepdims=True)
    Y = merge_heads(A @ V) @ W_o
    return Y, A
