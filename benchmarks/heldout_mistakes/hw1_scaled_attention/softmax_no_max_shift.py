import math

import numpy as np


def softmax(x, axis: int = -1) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(np.float64)
    # softmax(x)_i = exp(x_i) / sum_j exp(x_j)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_mask(n: int) -> np.ndarray:
    return np.tril(np.ones((n, n), dtype=bool))


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = [np.asarray(t) for t in (Q, K, V)]
    Q, K, V = [t if t.dtype == np.float32 else t.astype(np.float64) for t in (Q, K, V)]
    d_k = Q.shape[-1]
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) / math.sqrt(d_k)
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    A = softmax(scores, axis=-1)
    Z = np.matmul(A, V)
    return Z, A


def dot_product_variance(d_k: int, n_samples: int, rng: np.random.Generator):
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.einsum("ij,ij->i", q, k)
    return float(np.var(dots)), float(np.var(dots / math.sqrt(d_k)))
