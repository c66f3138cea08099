import math

import numpy as np


def _f(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def split_heads(X, num_heads):
    X = _f(X)
    d_head = X.shape[-1] // num_heads
    parts = X.reshape(X.shape[:-1] + (num_heads, d_head))
    return np.moveaxis(parts, -2, -3)


def merge_heads(X):
    X = _f(X)
    # concatenate head_1, ..., head_h along the feature axis
    return np.concatenate(list(X), axis=-1)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv, W_q, W_k, W_v, W_o = [_f(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o)]
    Q = split_heads(X_q @ W_q, num_heads)
    K = split_heads(X_kv @ W_k, num_heads)
    V = split_heads(X_kv @ W_v, num_heads)
    s = np.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(Q.shape[-1])
    if mask is not None:
        m = np.asarray(mask) != 0
        m = m.reshape((1,) * max(0, 2 - m.ndim) + m.shape)
        s = np.where(m[..., None, :, :], s, -np.inf)
    s = s - s.max(axis=-1, keepdims=True)
    A = np.exp(s)
    A /= A.sum(axis=-1, keepdims=True)
    Z = np.einsum("...qk,...kd->...qd", A, V)
    Z = np.moveaxis(Z, -3, -2)
    Z = Z.reshape(Z.shape[:-2] + (-1,))
    return Z @ W_o, A
