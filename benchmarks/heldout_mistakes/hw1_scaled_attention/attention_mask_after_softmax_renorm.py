import math

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(np.float64)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_mask(n):
    return np.tril(np.ones((n, n))).astype(bool)


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(t) for t in (Q, K, V))
    Q, K, V = (t if t.dtype == np.float32 else t.astype(np.float64) for t in (Q, K, V))
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_k)
    A = softmax(scores, axis=-1)
    if mask is not None:
        # zero out the forbidden keys, then renormalise so rows still sum to 1
        keep = np.asarray(mask).astype(A.dtype)
        A = A * keep
        A = A / A.sum(axis=-1, keepdims=True)
    return A @ V, A


def dot_product_variance(d_k, n_samples, rng):
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.sum(q * k, axis=1)
    return float(np.var(dots)), float(np.var(dots / math.sqrt(d_k)))
