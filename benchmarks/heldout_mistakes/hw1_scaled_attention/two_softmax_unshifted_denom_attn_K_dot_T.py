import math

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(np.float64)
    numerator = np.exp(x - np.max(x, axis=axis, keepdims=True))
    denominator = np.sum(np.exp(x), axis=axis, keepdims=True)
    return numerator / denominator


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))


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
    scores = Q @ K.T / math.sqrt(d_k)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A


def dot_product_variance(d_k, n_samples, rng):
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.sum(q * k, axis=1)
    return float(np.var(dots)), float(np.var(dots / math.sqrt(d_k)))
