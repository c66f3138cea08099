import math

import numpy as np


def _float(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def split_heads(X, num_heads):
    X = _float(X)
    d_model = X.shape[-1]
    d_head = d_model // num_heads
    Y = X.reshape(*X.shape[:-1], num_heads, d_head)
    return np.swapaxes(Y, -2, -3)


def merge_heads(X):
    X = _float(X)
    Y = np.swapaxes(X, -2, -3)
    return Y.reshape(*Y.shape[:-2], -1)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv, W_q, W_k, W_v, W_o = (_float(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o))
    Q = split_heads(X_q @ W_q, num_heads)
    K = split_heads(X_q @ W_k, num_heads)
    V = split_heads(X_q @ W_v, num_heads)
    d_head = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_head)
    if mask is not None:
        allowed = np.asarray(mask).astype(bool)
        if allowed.ndim == 1:
            allowed = allowed[np.newaxis]
        scores = np.where(allowed[..., np.newaxis, :, :], scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return merge_heads(weights @ V) @ W_o, weights
