"""hw3: multi-head attention, written with einsum and per-head weight blocks."""

from __future__ import annotations

import math

import numpy as np


def _working_dtype(*arrays):
    """float32 when the inputs promote to float32, float64 for everything else."""
    return np.dtype(np.float32) if np.result_type(*arrays) == np.float32 else np.dtype(np.float64)


def split_heads(X, num_heads: int) -> np.ndarray:
    X = np.asarray(X)
    X = X.astype(_working_dtype(X), copy=False)
    d_model = X.shape[-1]
    if num_heads < 1 or d_model % num_heads:
        raise ValueError("num_heads must be a positive divisor of d_model")
    blocks = X.reshape(*X.shape[:-1], num_heads, d_model // num_heads)  # (..., n, h, d_head)
    return np.einsum("...nhd->...hnd", blocks)


def merge_heads(X) -> np.ndarray:
    X = np.asarray(X)
    X = X.astype(_working_dtype(X), copy=False)
    if X.ndim < 3:
        raise ValueError("merge_heads needs at least 3 dimensions")
    h, n, d_head = X.shape[-3:]
    return np.einsum("...hnd->...nhd", X).reshape(*X.shape[:-3], n, h * d_head)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None) -> tuple[np.ndarray, np.ndarray]:
    arrays = [np.asarray(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o)]
    dtype = _working_dtype(*arrays)
    X_q, X_kv, W_q, W_k, W_v, W_o = (a.astype(dtype, copy=False) for a in arrays)
    d_model = W_q.shape[0]
    if num_heads < 1 or d_model % num_heads:
        raise ValueError("num_heads must be a positive divisor of d_model")
    h, d_head = num_heads, d_model // num_heads

    # Column block i of W_q, W_k, W_v produces head i; row block i of W_o reads head i.
    Wq = W_q.reshape(d_model, h, d_head)
    Wk = W_k.reshape(d_model, h, d_head)
    Wv = W_v.reshape(d_model, h, d_head)
    Wo = W_o.reshape(h, d_head, d_model)

    Q = np.einsum("...nm,mhd->...hnd", X_q, Wq)
    K = np.einsum("...nm,mhd->...hnd", X_kv, Wk)
    V = np.einsum("...nm,mhd->...hnd", X_kv, Wv)

    scores = np.einsum("...hqd,...hkd->...hqk", Q, K) * (1.0 / math.sqrt(d_head))
    if mask is not None:
        allowed = np.asarray(mask) != 0
        allowed = allowed.reshape((1,) * max(0, 2 - allowed.ndim) + allowed.shape)
        with np.errstate(divide="ignore"):
            log_allowed = np.log(allowed.astype(dtype))  # 0 where allowed, -inf where not
        scores = scores + np.expand_dims(log_allowed, -3)

    # log-softmax over the keys
    with np.errstate(invalid="ignore"):
        top = scores.max(axis=-1, keepdims=True)
        log_norm = top + np.log(np.exp(scores - top).sum(axis=-1, keepdims=True))
        A = np.exp(scores - log_norm)

    Z = np.einsum("...hqk,...hkd->...hqd", A, V)
    Y = np.einsum("...hqd,hdm->...qm", Z, Wo)
    return Y, A
