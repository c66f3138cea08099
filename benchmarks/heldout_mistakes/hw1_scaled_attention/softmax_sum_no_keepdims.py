import math

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    total = np.sum(e, axis=axis)
    return e / total


def causal_mask(n):
    mask = np.zeros((n, n), dtype=bool)
    rows, cols = np.tril_indices(n)
    mask[rows, cols] = True
    return mask


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    K = np.asarray(K)
    V = np.asarray(V)
    if Q.dtype != np.float32:
        Q = Q.astype(np.float64)
    if K.dtype != np.float32:
        K = K.astype(np.float64)
    if V.dtype != np.float32:
        V = V.astype(np.float64)

    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)

    # stable softmax over the keys
    scores_max = scores.max(axis=-1, keepdims=True)
    w = np.exp(scores - scores_max)
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ V, w


def dot_product_variance(d_k, n_samples, rng):
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.sum(q * k, axis=-1)
    return float(np.var(dots)), float(np.var(dots / np.sqrt(d_k)))
