import math

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(np.float64)
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(m) for m in (Q, K, V))
    Q, K, V = (m if m.dtype == np.float32 else m.astype(np.float64) for m in (Q, K, V))
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    A = softmax(scores)
    return A @ V, A


def dot_product_variance(d_k, n_samples, rng):
    raw = np.empty(n_samples)
    for i in range(n_samples):
        q = rng.standard_normal(d_k)
        k = rng.standard_normal(d_k)
        raw[i] = q @ k
    scaled = raw / math.sqrt(d_k)
    return float(np.var(raw)), float(np.var(scaled))
