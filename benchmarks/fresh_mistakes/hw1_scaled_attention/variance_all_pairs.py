# hw1 -- scaled dot-product attention
import math
import numpy as np


def softmax(x, axis: int = -1) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(float)
    shifted = x - x.max(axis=axis, keepdims=True)  # stability trick
    e = np.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)


def causal_mask(n: int) -> np.ndarray:
    i, j = np.indices((n, n))
    return j <= i


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = [a if a.dtype == np.float32 else a.astype(np.float64) for a in map(np.asarray, (Q, K, V))]
    d_k = Q.shape[-1]
    scores = np.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(d_k)
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    A = softmax(scores)
    Z = A @ V
    return Z, A


def dot_product_variance(d_k, n_samples, rng):
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = q @ k.T  # all the dot products at once
    return float(dots.var()), float((dots / np.sqrt(d_k)).var())
