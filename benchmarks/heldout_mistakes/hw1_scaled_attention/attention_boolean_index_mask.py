import math

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    x = x if x.dtype == np.float32 else x.astype(np.float64)
    x_max = x.max(axis=axis, keepdims=True)
    unnormalised = np.exp(x - x_max)
    return unnormalised / unnormalised.sum(axis=axis, keepdims=True)


def causal_mask(n):
    idx = np.arange(n)
    return np.less_equal.outer(idx, idx).T


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    K = np.asarray(K)
    V = np.asarray(V)
    Q = Q if Q.dtype == np.float32 else Q.astype(np.float64)
    K = K if K.dtype == np.float32 else K.astype(np.float64)
    V = V if V.dtype == np.float32 else V.astype(np.float64)

    d_k = Q.shape[-1]
    scores = (Q @ np.swapaxes(K, -1, -2)) / math.sqrt(d_k)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        scores[~mask] = -np.inf
    weights = softmax(scores, axis=-1)
    return weights @ V, weights


def dot_product_variance(d_k, n_samples, rng):
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    prods = np.einsum("ij,ij->i", q, k)
    return float(np.var(prods)), float(np.var(prods / math.sqrt(d_k)))
