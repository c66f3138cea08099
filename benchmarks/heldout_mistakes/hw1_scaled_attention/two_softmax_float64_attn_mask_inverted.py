import math

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    x_max = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - x_max)
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    K = np.asarray(K)
    V = np.asarray(V)
    Q = Q if Q.dtype == np.float32 else Q.astype(np.float64)
    K = K if K.dtype == np.float32 else K.astype(np.float64)
    V = V if V.dtype == np.float32 else V.astype(np.float64)
    d_k = Q.shape[-1]
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) / math.sqrt(d_k)
    if mask is not None:
        # masked_fill: positions where the mask is set are blocked
        scores = np.where(np.asarray(mask).astype(bool), -np.inf, scores)
    weights = softmax(scores, axis=-1)
    return np.matmul(weights, V), weights


def dot_product_variance(d_k, n_samples, rng):
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.einsum("ij,ij->i", q, k)
    return float(np.var(dots)), float(np.var(dots / math.sqrt(d_k)))
