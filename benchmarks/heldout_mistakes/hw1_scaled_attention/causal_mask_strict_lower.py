
import math

import numpy as np


def softmax(x, axis: int = -1) -> np.ndarray:
    arr = np.asarray(x)
    arr = arr if arr.dtype == np.float32 else arr.astype(np.float64)
    arr = arr - np.max(arr, axis=axis, keepdims=True)
    num = np.exp(arr)
    den = np.sum(num, axis=axis, keepdims=True)
    return num / den


def causal_mask(n: int) -> np.ndarray:
    # query i may only look at keys before it
    return np.tril(np.ones((n, n), dtype=bool), k=-1)


def scaled_dot_product_attention(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    Q, K, V = (np.asarray(a) for a in (Q, K, V))
    Q, K, V = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (Q, K, V))
    d_k = Q.shape[-1]
    scores = np.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(d_k)
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    A = softmax(scores, axis=-1)
    Z = np.einsum("...qk,...kv->...qv", A, V)
    return Z, A


def dot_product_variance(d_k: int, n_samples: int, rng: np.random.Generator) -> tuple[float, float]:
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = (q * k).sum(-1)
    return float(np.var(dots)), float(np.var(dots / math.sqrt(d_k)))
