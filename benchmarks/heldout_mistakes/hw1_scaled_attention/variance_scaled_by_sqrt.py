import math

import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(np.float64)
    m = np.amax(x, axis=axis, keepdims=True)
    p = np.exp(x - m)
    p /= np.sum(p, axis=axis, keepdims=True)
    return p


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    if Q.dtype != np.float32:
        Q = Q.astype(np.float64)
    if K.dtype != np.float32:
        K = K.astype(np.float64)
    if V.dtype != np.float32:
        V = V.astype(np.float64)
    d_k = Q.shape[-1]
    scores = np.matmul(Q, np.swapaxes(K, -2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    A = softmax(scores, axis=-1)
    return np.matmul(A, V), A


def dot_product_variance(d_k, n_samples, rng):
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.sum(q * k, axis=1)
    var_raw = float(np.var(dots))
    # dividing the dot products by sqrt(d_k) divides their variance by sqrt(d_k)
    var_scaled = var_raw / math.sqrt(d_k)
    return var_raw, var_scaled
