import math

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(np.float64)
    ex = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return ex / np.sum(ex)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a) for a in (Q, K, V))
    Q, K, V = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (Q, K, V))
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2)
    scores = scores / d_k  # scale the scores down by the key dimension
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def dot_product_variance(d_k, n_samples, rng):
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.sum(q * k, axis=-1)
    return float(np.var(dots)), float(np.var(dots / math.sqrt(d_k)))
