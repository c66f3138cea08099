import math

import numpy as np


def to_float(a):
    a = np.asarray(a)
    if a.dtype != np.float32:
        a = a.astype(np.float64)
    return a


def split_heads(X, num_heads):
    X = to_float(X)
    d_model = X.shape[-1]
    d_head = d_model // num_heads
    # (..., n, d_model) -> (..., n, d_head, h) -> (..., h, n, d_head)
    Xr = X.reshape(X.shape[:-1] + (d_head, num_heads))
    return np.moveaxis(Xr, -1, -3)


def merge_heads(X):
    X = to_float(X)
    h, n, d_head = X.shape[-3:]
    Xt = np.moveaxis(X, -3, -2)                 # (..., n, h, d_head)
    return Xt.reshape(X.shape[:-3] + (n, h * d_head))


def _softmax(x):
    x = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=-1, keepdims=True)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv, W_q, W_k, W_v, W_o = map(to_float, (X_q, X_kv, W_q, W_k, W_v, W_o))
    Q = split_heads(X_q @ W_q, num_heads)
    K = split_heads(X_kv @ W_k, num_heads)
    V = split_heads(X_kv @ W_v, num_heads)
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) / math.sqrt(Q.shape[-1])
    if mask is not None:
        mask = np.atleast_2d(np.asarray(mask).astype(bool))
        scores = np.where(np.expand_dims(mask, -3), scores, -np.inf)
    A = _softmax(scores)
    Y = merge_heads(np.matmul(A, V)) @ W_o
    return Y, A
