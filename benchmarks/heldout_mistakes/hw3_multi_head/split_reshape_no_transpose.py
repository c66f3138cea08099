import math

import numpy as np


def _float(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def split_heads(X, num_heads):
    X = _float(X)
    *batch, n, d_model = X.shape
    d_head = d_model // num_heads
    return X.reshape(*batch, num_heads, n, d_head)


def merge_heads(X):
    X = _float(X)
    *batch, h, n, d_head = X.shape
    return np.swapaxes(X, -3, -2).reshape(*batch, n, h * d_head)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv, W_q, W_k, W_v, W_o = (_float(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o))
    Q = split_heads(X_q @ W_q, num_heads)
    K = split_heads(X_kv @ W_k, num_heads)
    V = split_heads(X_kv @ W_v, num_heads)
    d_head = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_head)
    if mask is not None:
        m = np.asarray(mask).astype(bool)
        if m.ndim == 1:
            m = m[None, :]
        scores = np.where(m[..., None, :, :], scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    A = np.exp(scores)
    A = A / A.sum(axis=-1, keepdims=True)
    return merge_heads(A @ V) @ W_o, A
