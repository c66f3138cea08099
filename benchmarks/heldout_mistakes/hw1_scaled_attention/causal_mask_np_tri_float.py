import math

import numpy as np


def softmax(x, axis=-1):
    x = np.array(x, dtype=np.float32 if np.asarray(x).dtype == np.float32 else np.float64)
    x -= np.max(x, axis=axis, keepdims=True)
    np.exp(x, out=x)
    x /= np.sum(x, axis=axis, keepdims=True)
    return x


def causal_mask(n):
    # lower triangle of ones (diagonal included): row = query, column = key
    return np.tri(n)


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
    scale = 1.0 / math.sqrt(Q.shape[-1])
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) * scale
    if mask is not None:
        allowed = np.asarray(mask).astype(bool)
        scores = np.where(allowed, scores, -np.inf)
    A = softmax(scores)
    return np.matmul(A, V), A


def dot_product_variance(d_k, n_samples, rng):
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.einsum("ij,ij->i", q, k)
    return float(np.var(dots)), float(np.var(dots / math.sqrt(d_k)))
