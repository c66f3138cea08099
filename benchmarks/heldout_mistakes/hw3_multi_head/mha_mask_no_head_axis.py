import math

import numpy as np


def _f(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def split_heads(X, num_heads):
    X = _f(X)
    d_head = X.shape[-1] // num_heads
    return np.moveaxis(X.reshape(X.shape[:-1] + (num_heads, d_head)), -2, -3)


def merge_heads(X):
    X = _f(X)
    Y = np.moveaxis(X, -3, -2)
    return Y.reshape(Y.shape[:-2] + (Y.shape[-2] * Y.shape[-1],))


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv, W_q, W_k, W_v, W_o = (_f(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o))
    Q = split_heads(X_q @ W_q, num_heads)
    K = split_heads(X_kv @ W_k, num_heads)
    V = split_heads(X_kv @ W_v, num_heads)
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])   # (..., h, n_q, n_kv)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    scores -= scores.max(axis=-1, keepdims=True)
    A = np.exp(scores)
    A /= A.sum(axis=-1, keepdims=True)
    return merge_heads(A @ V) @ W_o, A
