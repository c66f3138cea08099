import math

import numpy as np


def _as_float(a):
    a = np.asarray(a)
    return a.astype(np.float32 if a.dtype == np.float32 else np.float64, copy=False)


def split_heads(X, num_heads):
    X = _as_float(X)
    lead = X.shape[:-2]
    n, d_model = X.shape[-2:]
    Y = X.reshape(lead + (n, num_heads, d_model // num_heads))
    k = len(lead)
    axes = tuple(range(k)) + (k + 1, k, k + 2)
    return np.transpose(Y, axes)


def merge_heads(X):
    X = _as_float(X)
    k = X.ndim - 3
    axes = tuple(range(k)) + (k + 1, k, k + 2)
    Y = np.transpose(X, axes)                      # (..., n, h, d_head)
    return Y.reshape(Y.shape[:-2] + (Y.shape[-2] * Y.shape[-1],))


def _masked_softmax(scores, allowed):
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
    peak = scores.max(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        w = np.exp(scores - peak)
        return w / w.sum(axis=-1, keepdims=True)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv, W_q, W_k, W_v, W_o = (_as_float(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o))
    Q, K, V = (split_heads(x @ w, num_heads) for x, w in ((X_q, W_q), (X_kv, W_k), (X_kv, W_v)))
    scores = (Q @ np.swapaxes(K, -1, -2)) * Q.shape[-1] ** -0.5
    allowed = None
    if mask is not None:
        allowed = np.asarray(mask).astype(bool)
        allowed = allowed.reshape((1,) * max(2 - allowed.ndim, 0) + allowed.shape)
        allowed = allowed.reshape(allowed.shape[:-2] + (1,) + allowed.shape[-2:])
    A = _masked_softmax(scores, allowed)
    return merge_heads(A @ V) @ W_o, A
