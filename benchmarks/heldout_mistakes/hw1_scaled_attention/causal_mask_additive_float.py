import math

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(np.float64)
    shifted = x - x.max(axis=axis, keepdims=True)
    ex = np.exp(shifted)
    return ex / ex.sum(axis=axis, keepdims=True)


def causal_mask(n):
    # future positions get -inf so that softmax gives them 0 weight,
    # allowed positions get 0 (added to the scores)
    mask = np.full((n, n), -np.inf)
    return np.triu(mask, k=1)


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    K = np.asarray(K)
    V = np.asarray(V)
    Q = Q if Q.dtype == np.float32 else Q.astype(np.float64)
    K = K if K.dtype == np.float32 else K.astype(np.float64)
    V = V if V.dtype == np.float32 else V.astype(np.float64)

    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(K.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights


def dot_product_variance(d_k, n_samples, rng):
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    d = np.sum(q * k, axis=1)
    return float(np.var(d)), float(np.var(d / math.sqrt(d_k)))
