import math

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_mask(n):
    q = np.arange(n).reshape(n, 1)
    k = np.arange(n).reshape(1, n)
    return k <= q


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a) for a in (Q, K, V))
    Q, K, V = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (Q, K, V))
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_k)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def dot_product_variance(d_k, n_samples, rng):
    rng = np.random.default_rng(0)  # fixed seed so the numbers are reproducible
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.sum(q * k, axis=-1)
    return float(np.var(dots)), float(np.var(dots / math.sqrt(d_k)))
