import math

import numpy as np


def _f(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def split_heads(X, num_heads):
    X = _f(X)
    *lead, n, d = X.shape
    return X.reshape(*lead, n, num_heads, d // num_heads).swapaxes(-3, -2)


def merge_heads(X):
    X = _f(X)
    *lead, h, n, d = X.shape
    return X.swapaxes(-3, -2).reshape(*lead, n, h * d)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv, W_q, W_k, W_v, W_o = (_f(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o))
    Q = split_heads(X_q @ W_q, num_heads)
    K = split_heads(X_kv @ W_k, num_heads)
    V = split_heads(X_kv @ W_v, num_heads)
    scores = Q @ K.swapaxes(-1, -2) / math.sqrt(Q.shape[-1])
    if mask is not None:
        head_mask = np.asarray(mask).astype(bool)[..., None, :, :]   # same mask for every head
        scores = np.where(head_mask, scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    A = np.exp(scores)
    A = A / A.sum(axis=-1, keepdims=True)
    return merge_heads(A @ V) @ W_o, A
