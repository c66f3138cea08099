"""HW1: scaled dot-product attention. All functions vectorised with numpy."""
import numpy as np
import math


def softmax(x, axis: int = -1) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(np.float64)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_mask(n: int) -> np.ndarray:
    # lower triangle including the diagonal
    return np.tril(np.ones((n, n), dtype=bool))


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


def dot_product_variance(d_k: int, n_samples: int, rng: np.random.Generator) -> tuple[float, float]:
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    raw = (q * k).sum(axis=1)
    scaled = raw / math.sqrt(d_k)
    return float(np.var(raw)), float(np.var(scaled))
