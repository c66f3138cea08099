import math

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    dtype = np.float32 if x.dtype == np.float32 else np.float64
    x = np.moveaxis(x.astype(dtype, copy=False), axis, -1)   # work on the last axis
    top = x.max(axis=-1)[..., np.newaxis]
    with np.errstate(invalid="ignore"):
        w = np.exp(x - top)
        w = w / w.sum(axis=-1)[..., np.newaxis]
    return np.moveaxis(w, -1, axis)


def causal_mask(n):
    return ~np.triu(np.ones((n, n), dtype=bool), k=1)


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a) for a in (Q, K, V))
    Q, K, V = (a.astype(np.float32 if a.dtype == np.float32 else np.float64, copy=False) for a in (Q, K, V))
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) * (1.0 / math.sqrt(Q.shape[-1]))
    if mask is not None:
        allowed = np.asarray(mask).astype(bool)
        bias = np.where(allowed, 0.0, -np.inf).astype(scores.dtype)
        scores = scores + bias
    weights = softmax(scores, -1)
    return np.matmul(weights, V), weights


def dot_product_variance(d_k, n_samples, rng):
    q = rng.normal(0.0, 1.0, size=(n_samples, d_k))
    k = rng.normal(0.0, 1.0, size=(n_samples, d_k))
    dots = np.multiply(q, k).sum(axis=1)
    scaled = dots / math.sqrt(d_k)
    return float(np.mean((dots - dots.mean()) ** 2)), float(np.mean((scaled - scaled.mean()) ** 2))
