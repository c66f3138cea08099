import math

import numpy as np


def _f(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def split_heads(X, num_heads):
    X = _f(X)
    # cut the features into num_heads equal chunks and stack them along a new head axis
    return np.stack(np.split(X, num_heads, axis=-1))


def merge_heads(X):
    X = _f(X)
    heads_first = np.moveaxis(X, -3, 0)              # (h, ..., n, d_head)
    return np.concatenate(heads_first, axis=-1)      # head_1 | head_2 | ... along the features


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv = _f(X_q), _f(X_kv)
    W_q, W_k, W_v, W_o = _f(W_q), _f(W_k), _f(W_v), _f(W_o)
    d_model = X_q.shape[-1]
    d_head = d_model // num_heads

    def heads(Y):  # (..., n, d_model) -> (..., h, n, d_head)
        return np.swapaxes(Y.reshape(Y.shape[:-1] + (num_heads, d_head)), -2, -3)

    Q, K, V = heads(X_q @ W_q), heads(X_kv @ W_k), heads(X_kv @ W_v)
    S = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_head)
    if mask is not None:
        M = np.asarray(mask).astype(bool)
        if M.ndim < 2:
            M = M.reshape(1, -1)
        S = np.where(M[..., None, :, :], S, -np.inf)
    S = np.exp(S - S.max(axis=-1, keepdims=True))
    A = S / S.sum(axis=-1, keepdims=True)
    return merge_heads(A @ V) @ W_o, A
