"""hw3: multi-head attention (a correct implementation)."""

from __future__ import annotations

import math

import numpy as np


def _as_float(X) -> np.ndarray:
    """float32 stays float32; everything else becomes float64."""
    X = np.asarray(X)
    return X if X.dtype == np.float32 else X.astype(np.float64)


def split_heads(X, num_heads: int) -> np.ndarray:
    """(..., n, d_model) -> (..., num_heads, n, d_model // num_heads)."""
    X = _as_float(X)
    d_model = X.shape[-1]
    if num_heads <= 0 or d_model % num_heads != 0:
        raise ValueError(f"num_heads={num_heads} must be positive and divide d_model={d_model}")
    d_head = d_model // num_heads
    X = X.reshape(X.shape[:-1] + (num_heads, d_head))
    return np.swapaxes(X, -3, -2)


def merge_heads(X) -> np.ndarray:
    """(..., num_heads, n, d_head) -> (..., n, num_heads * d_head)."""
    X = _as_float(X)
    if X.ndim < 3:
        raise ValueError("merge_heads needs an array of at least 3 dimensions")
    num_heads, n, d_head = X.shape[-3:]
    X = np.swapaxes(X, -3, -2)
    return X.reshape(X.shape[:-3] + (n, num_heads * d_head))


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Returns (Y, A): Y of shape (..., n_q, d_model), A of shape (..., num_heads, n_q, n_kv)."""
    arrays = [np.asarray(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o)]
    dtype = np.float32 if np.result_type(*arrays) == np.float32 else np.float64
    X_q, X_kv, W_q, W_k, W_v, W_o = (a.astype(dtype, copy=False) for a in arrays)
    d_model = X_q.shape[-1]
    if num_heads <= 0 or d_model % num_heads != 0:
        raise ValueError(f"num_heads={num_heads} must be positive and divide d_model={d_model}")
    d_head = d_model // num_heads

    Q = split_heads(X_q @ W_q, num_heads)   # (..., h, n_q, d_head)
    K = split_heads(X_kv @ W_k, num_heads)  # (..., h, n_kv, d_head)
    V = split_heads(X_kv @ W_v, num_heads)  # (..., h, n_kv, d_head)

    scores = (Q @ np.swapaxes(K, -1, -2)) / math.sqrt(d_head)  # (..., h, n_q, n_kv)
    if mask is not None:
        mask = np.asarray(mask).astype(bool)
        if mask.ndim == 1:
            mask = mask[None, :]
        mask = mask[..., None, :, :]  # head axis in front of the last two
        bias = np.where(mask, 0.0, -np.inf)  # 0 where allowed, -inf where masked
        scores = scores + bias

    shifted = scores - np.max(scores, axis=-1, keepdims=True)
    weights = np.exp(shifted)
    A = weights / np.sum(weights, axis=-1, keepdims=True)

    Y = merge_heads(A @ V) @ W_o
    return Y, A
