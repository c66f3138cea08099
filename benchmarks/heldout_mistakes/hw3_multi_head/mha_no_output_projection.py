import math

import numpy as np


def _f(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def split_heads(X, num_heads):
    X = _f(X)
    *batch, n, d_model = X.shape
    out = X.reshape(*batch, n, num_heads, d_model // num_heads)
    return np.swapaxes(out, -2, -3)


def merge_heads(X):
    X = _f(X)
    *batch, h, n, d_head = X.shape
    return np.swapaxes(X, -2, -3).reshape(*batch, n, h * d_head)


def _softmax(x):
    x = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=-1, keepdims=True)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv, W_q, W_k, W_v, W_o = (_f(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o))
    Q = split_heads(X_q @ W_q, num_heads)
    K = split_heads(X_kv @ W_k, num_heads)
    V = split_heads(X_kv @ W_v, num_heads)
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    if mask is not None:
        m = np.asarray(mask).astype(bool)
        if m.ndim == 1:
            m = m[None, :]
        scores = np.where(m[..., None, :, :], scores, -np.inf)
    A = _softmax(scores)
    Y = merge_heads(A @ V)   # concat(head_1, ..., head_h)
    return Y, A
