import math

import numpy as np


def _float(a):
    a = np.asarray(a)
    if a.dtype == np.float32 or a.dtype == np.float64:
        return a
    return a.astype(np.float64)


def softmax(x, axis=-1):
    x = _float(x)
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=axis, keepdims=True)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = _float(Q), _float(K), _float(V)
    d_k = Q.shape[-1]
    # scale the queries first: (Q / sqrt(d_k)) K^T == Q K^T / sqrt(d_k), and it is cheaper
    Q /= math.sqrt(d_k)
    scores = Q @ np.swapaxes(K, -1, -2)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def dot_product_variance(d_k, n_samples, rng):
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.sum(q * k, axis=-1)
    return float(np.var(dots)), float(np.var(dots / math.sqrt(d_k)))
