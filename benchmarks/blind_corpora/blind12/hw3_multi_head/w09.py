"""Assignment 3 · Multi-head attention: a straightforward correct solution."""

from __future__ import annotations

import math

import numpy as np


def _as_float(X) -> np.ndarray:
    """float32 stays float32; everything else (ints, lists, float64, ...) becomes float64."""
    X = np.asarray(X)
    if X.dtype == np.float32:
        return X
    return X.astype(np.float64)


def split_heads(X, num_heads: int) -> np.ndarray:
    """(..., n, d_model) -> (..., num_heads, n, d_model // num_heads)."""
    X = _as_float(X)
    d_model = X.shape[-1]
    if num_heads <= 0 or d_model % num_heads != 0:
        raise ValueError(f"num_heads={num_heads} must be positive and divide d_model={d_model}")
    d_head = d_model // num_heads
    out = X.reshape(X.shape[:-1] + (num_heads, d_head))  # (..., n, h, d_head)
    return np.swapaxes(out, -3, -2)  # (..., h, n, d_head)


def merge_heads(X) -> np.ndarray:
    """(..., num_heads, n, d_head) -> (..., n, num_heads * d_head)."""
    X = _as_float(X)
    if X.ndim < 3:
        raise ValueError("merge_heads needs at least 3 dimensions (..., num_heads, n, d_head)")
    h, n, d_head = X.shape[-3:]
    out = np.swapaxes(X, -3, -2)  # (..., n, h, d_head)
    return out.reshape(out.shape[:-2] + (h * d_head,))


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Project, split into heads, attend within each head, merge, project out."""
    X_q, X_kv = _as_float(X_q), _as_float(X_kv)
    W_q, W_k, W_v, W_o = (_as_float(W) for W in (W_q, W_k, W_v, W_o))
    d_model = W_q.shape[-1]
    if num_heads <= 0 or d_model % num_heads != 0:
        raise ValueError(f"num_heads={num_heads} must be positive and divide d_model={d_model}")
    d_head = d_model // num_heads

    Q = split_heads(X_q @ W_q, num_heads)  # (..., h, n_q, d_head)
    K = split_heads(X_kv @ W_k, num_heads)  # (..., h, n_kv, d_head)
    V = split_heads(X_kv @ W_v, num_heads)  # (..., h, n_kv, d_head)

    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_head)  # (..., h, n_q, n_kv)
    if mask is not None:
        mask = np.asarray(mask).astype(bool)
        if mask.ndim == 1:
            mask = mask[None, :]
        mask = mask[..., None, :, :]  # head axis in front of the last two
        scores = np.where(mask, scores, -np.inf)

    shifted = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(shifted)
    heads = weights @ V  # (..., h, n_q, d_head)
    A = weights / weights.sum(axis=-1, keepdims=True)

    Y = merge_heads(heads) @ W_o  # (..., n_q, d_model)
    return Y, A
