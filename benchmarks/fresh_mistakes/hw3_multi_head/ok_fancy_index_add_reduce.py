# Assignment 3: multi-head attention
from __future__ import annotations

import math

import numpy as np


def split_heads(X, num_heads: int) -> np.ndarray:
    X = np.asarray(X)
    X = X if X.dtype == np.float32 else X.astype(np.float64)
    d_model = X.shape[-1]
    if num_heads < 1 or d_model % num_heads:
        raise ValueError("num_heads must divide d_model")
    d_head = d_model // num_heads
    # index array: idx[i, j] = i * d_head + j is feature j of head i
    idx = np.arange(d_model).reshape(num_heads, d_head)
    out = X[..., idx]  # (..., n, h, d_head)
    return np.swapaxes(out, -2, -3)


def merge_heads(X) -> np.ndarray:
    X = np.asarray(X)
    X = X if X.dtype == np.float32 else X.astype(np.float64)
    nd = X.ndim
    perm = list(range(nd - 3)) + [nd - 2, nd - 3, nd - 1]
    Y = X.transpose(perm)  # (..., n, h, d_head)
    return Y.reshape(Y.shape[:-2] + (Y.shape[-2] * Y.shape[-1],))


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None) -> tuple[np.ndarray, np.ndarray]:
    X_q, X_kv, W_q, W_k, W_v, W_o = (np.asarray(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o))
    X_q, X_kv, W_q, W_k, W_v, W_o = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (X_q, X_kv, W_q, W_k, W_v, W_o))
    Q = split_heads(np.matmul(X_q, W_q), num_heads)
    K = split_heads(np.matmul(X_kv, W_k), num_heads)
    V = split_heads(np.matmul(X_kv, W_v), num_heads)
    K_T = np.swapaxes(K, -1, -2)
    scores = np.matmul(Q, K_T) * (1.0 / math.sqrt(Q.shape[-1]))
    if mask is not None:
        allowed = np.asarray(mask, dtype=bool)
        while allowed.ndim < 2:
            allowed = allowed[np.newaxis]
        scores = np.where(allowed[..., np.newaxis, :, :], scores, -np.inf)
    with np.errstate(invalid="ignore"):
        e = np.exp(scores - np.amax(scores, axis=-1, keepdims=True))
        A = e / np.add.reduce(e, axis=-1, keepdims=True)
    Y = np.matmul(merge_heads(np.matmul(A, V)), W_o)
    return Y, A
