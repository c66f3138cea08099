import numpy as np
import math


def _softmax_1d(v):
    v = v - v.max()
    e = np.exp(v)
    return e / e.sum()


def softmax(x, axis: int = -1) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(np.float64)
    return np.apply_along_axis(_softmax_1d, axis, x)


def causal_mask(n: int) -> np.ndarray:
    if n < 1:
        raise ValueError("n must be >= 1")
    return np.tril(np.full((n, n), True))


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a) for a in (Q, K, V))
    Q, K, V = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (Q, K, V))
    d_k = Q.shape[-1]
    scores = np.matmul(Q, np.swapaxes(K, -2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = np.where(np.asarray(mask) != 0, scores, -np.inf)
    # softmax over the keys (last axis)
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / np.sum(weights, axis=-1, keepdims=True)
    return np.matmul(weights, V), weights


def dot_product_variance(d_k, n_samples, rng):
    if d_k < 1:
        raise ValueError("d_k must be at least 1")
    if n_samples < 2:
        raise ValueError("need at least 2 samples")
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.sum(q * k, axis=1)
    def var(v):
        centred = v - v.mean()
        return float(np.dot(centred, centred) / len(v))
    return var(dots), var(dots / math.sqrt(d_k))
