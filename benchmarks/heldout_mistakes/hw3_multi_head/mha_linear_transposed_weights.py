import math

import numpy as np


def _f(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def split_heads(X, num_heads):
    X = _f(X)
    *batch, n, d_model = X.shape
    return np.swapaxes(X.reshape(*batch, n, num_heads, d_model // num_heads), -3, -2)


def merge_heads(X):
    X = _f(X)
    *batch, h, n, d_head = X.shape
    return np.swapaxes(X, -3, -2).reshape(*batch, n, h * d_head)


def _linear(X, W):
    # like nn.Linear: y = x W^T
    return X @ W.T


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv, W_q, W_k, W_v, W_o = (_f(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o))
    Q = split_heads(_linear(X_q, W_q), num_heads)
    K = split_heads(_linear(X_kv, W_k), num_heads)
    V = split_heads(_linear(X_kv, W_v), num_heads)
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    if mask is not None:
        m = np.asarray(mask).astype(bool)
        if m.ndim == 1:
            m = m[None, :]
        scores = np.where(m[..., None, :, :], scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    A = e / e.sum(axis=-1, keepdims=True)
    return _linear(merge_heads(A @ V), W_o), A
