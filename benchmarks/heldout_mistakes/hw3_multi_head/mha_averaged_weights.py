import math

import numpy as np


def _f(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def split_heads(X, num_heads):
    X = _f(X)
    *batch, n, d_model = X.shape
    return X.reshape(*batch, n, num_heads, d_model // num_heads).swapaxes(-2, -3)


def merge_heads(X):
    X = _f(X)
    *batch, h, n, d_head = X.shape
    return X.swapaxes(-2, -3).reshape(*batch, n, h * d_head)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv, W_q, W_k, W_v, W_o = (_f(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o))
    Q = split_heads(X_q @ W_q, num_heads)
    K = split_heads(X_kv @ W_k, num_heads)
    V = split_heads(X_kv @ W_v, num_heads)
    scores = Q @ K.swapaxes(-1, -2) / math.sqrt(Q.shape[-1])
    if mask is not None:
        m = np.asarray(mask).astype(bool)
        if m.ndim == 1:
            m = m[None, :]
        scores = np.where(m[..., None, :, :], scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    Y = merge_heads(weights @ V) @ W_o
    # one attention map per query/key pair, averaged over the heads
    return Y, weights.mean(axis=-3)
