"""HW3 - multi-head attention, vectorised over batch and heads."""
import numpy as np
import math


def split_heads(X, num_heads: int) -> np.ndarray:
    X = np.asarray(X)
    X = X if X.dtype == np.float32 else X.astype(np.float64)
    d_head = X.shape[-1] // num_heads
    Y = X.reshape(X.shape[:-1] + (num_heads, d_head))
    nd = Y.ndim
    perm = list(range(nd - 3)) + [nd - 2, nd - 3, nd - 1]  # swap n and h
    return Y.transpose(perm)


def merge_heads(X) -> np.ndarray:
    X = np.asarray(X)
    X = X if X.dtype == np.float32 else X.astype(np.float64)
    b, h, n, d = X.shape
    return X.transpose(0, 2, 1, 3).reshape(b, n, h * d)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None):
    X_q, X_kv, W_q, W_k, W_v, W_o = (np.asarray(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o))
    X_q, X_kv, W_q, W_k, W_v, W_o = (
        a if a.dtype == np.float32 else a.astype(np.float64) for a in (X_q, X_kv, W_q, W_k, W_v, W_o)
    )
    *batch_q, n_q, d_model = X_q.shape
    *batch_kv, n_kv, _ = X_kv.shape
    d_head = d_model // num_heads
    # project and cut into heads: (..., n, d_model) -> (..., h, n, d_head)
    Q = np.swapaxes((X_q @ W_q).reshape(*batch_q, n_q, num_heads, d_head), -2, -3)
    K = np.swapaxes((X_kv @ W_k).reshape(*batch_kv, n_kv, num_heads, d_head), -2, -3)
    V = np.swapaxes((X_kv @ W_v).reshape(*batch_kv, n_kv, num_heads, d_head), -2, -3)
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_head)
    if mask is not None:
        m = np.asarray(mask).astype(bool)
        if m.ndim == 1:
            m = m.reshape(1, -1)
        scores = np.where(m[..., None, :, :], scores, -np.inf)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    A = w / w.sum(axis=-1, keepdims=True)
    Z = A @ V  # (..., h, n_q, d_head)
    Z = np.swapaxes(Z, -2, -3)  # (..., n_q, h, d_head)
    Y = Z.reshape(Z.shape[:-2] + (d_model,)) @ W_o
    return Y, A
