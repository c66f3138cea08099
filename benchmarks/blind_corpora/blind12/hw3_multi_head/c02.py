"""Assignment 3 · Multi-head attention."""

from __future__ import annotations

import math

import numpy as np


def _working_dtype(*arrays) -> type:
    """float32 only when every array is float32; otherwise float64."""
    return np.float32 if all(np.asarray(a).dtype == np.float32 for a in arrays) else np.float64


def split_heads(X, num_heads: int) -> np.ndarray:
    """(..., n, d_model) -> (..., num_heads, n, d_model // num_heads), via np.split and np.stack."""
    X = np.asarray(X)
    X = X.astype(_working_dtype(X), copy=False)
    d_model = X.shape[-1]
    if num_heads < 1 or d_model % num_heads != 0:
        raise ValueError(f"cannot split d_model={d_model} into {num_heads} heads")
    return np.stack(np.split(X, num_heads, axis=-1), axis=-3)


def merge_heads(X) -> np.ndarray:
    """(..., num_heads, n, d_head) -> (..., n, num_heads * d_head), via np.split and np.concatenate."""
    X = np.asarray(X)
    X = X.astype(_working_dtype(X), copy=False)
    if X.ndim < 3:
        raise ValueError("merge_heads expects at least 3 dimensions")
    pieces = np.split(X, X.shape[-3], axis=-3)  # h pieces of (..., 1, n, d_head)
    return np.concatenate(pieces, axis=-1)[..., 0, :, :]


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Per-head projections with einsum, a masked softmax built with np.where."""
    dtype = _working_dtype(X_q, X_kv, W_q, W_k, W_v, W_o)
    X_q, X_kv, W_q, W_k, W_v, W_o = (np.asarray(a).astype(dtype, copy=False) for a in (X_q, X_kv, W_q, W_k, W_v, W_o))
    d_model = W_q.shape[-1]
    if num_heads < 1 or d_model % num_heads != 0:
        raise ValueError(f"cannot split d_model={d_model} into {num_heads} heads")
    d_head = d_model // num_heads

    # Column block i of W_q is head i's own query projection: (d_model, h, d_head).
    Wq_h, Wk_h, Wv_h = (W.reshape(d_model, num_heads, d_head) for W in (W_q, W_k, W_v))
    Q = np.einsum("...nm,mhd->...hnd", X_q, Wq_h)
    K = np.einsum("...nm,mhd->...hnd", X_kv, Wk_h)
    V = np.einsum("...nm,mhd->...hnd", X_kv, Wv_h)
    scores = np.einsum("...hqd,...hkd->...hqk", Q, K) / dtype(math.sqrt(d_head))

    if mask is None:
        allowed = np.ones((1, 1), dtype=bool)
    else:
        allowed = np.asarray(mask).astype(bool)
        if allowed.ndim == 1:
            allowed = allowed.reshape(1, -1)
    allowed = allowed.reshape(allowed.shape[:-2] + (1,) + allowed.shape[-2:])  # head axis
    allowed = np.broadcast_to(allowed, np.broadcast_shapes(allowed.shape, scores.shape))

    kept = np.where(allowed, scores, -np.inf)
    row_max = np.max(kept, axis=-1, keepdims=True)
    numerators = np.where(allowed, np.exp(kept - row_max), dtype(0))
    A = numerators / np.sum(numerators, axis=-1, keepdims=True)

    # Row block i of W_o mixes head i's output: (h, d_head, d_model), summed over the heads.
    Y = np.einsum("...hqd,hdm->...qm", np.einsum("...hqk,...hkd->...hqd", A, V), W_o.reshape(num_heads, d_head, d_model))
    return Y, A
