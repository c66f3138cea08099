# hw3 multi-head attention
import math
import numpy as np


def _as_float(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def split_heads(X, num_heads):
    X = np.asarray(X)
    if X.dtype != np.float32:
        X = X.astype(np.float64)
    *batch, n, d_model = X.shape
    if num_heads < 1 or d_model % num_heads:
        raise ValueError("num_heads must divide d_model")
    X = X.reshape(*batch, n, d_model // num_heads, num_heads)  # (..., n, d_head, h)
    return np.moveaxis(X, -1, -3)  # (..., h, n, d_head)


def merge_heads(X):
    X = np.asarray(X)
    if X.dtype != np.float32:
        X = X.astype(np.float64)
    if X.ndim < 3:
        raise ValueError("X needs a head axis")
    Xt = np.moveaxis(X, -3, -1)  # (..., n, d_head, h)
    return Xt.reshape(Xt.shape[:-2] + (-1,))


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv, W_q, W_k, W_v, W_o = [_as_float(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o)]
    Q = split_heads(X_q @ W_q, num_heads)
    K = split_heads(X_kv @ W_k, num_heads)
    V = split_heads(X_kv @ W_v, num_heads)
    d_head = Q.shape[-1]
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) / math.sqrt(d_head)  # (..., h, n_q, n_kv)
    if mask is not None:
        m = np.asarray(mask).astype(bool)
        if m.ndim == 1:
            m = m[None, :]  # padding mask: same for every query
        m = np.expand_dims(m, -3)  # same mask for every head
        scores = np.where(m, scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    A = np.exp(scores)
    A = A / A.sum(axis=-1, keepdims=True)
    Y = merge_heads(A @ V) @ W_o
    return Y, A
