"""hw1: scaled dot-product attention (reference-style correct implementation, written blind)."""

from __future__ import annotations

import math

import numpy as np


def _as_float(x) -> np.ndarray:
    """float32 stays float32; everything else becomes float64."""
    x = np.asarray(x)
    if x.dtype == np.float32:
        return x
    return x.astype(np.float64)


def softmax(x, axis: int = -1) -> np.ndarray:
    # guard against inf / nan sneaking into exp
    x = np.nan_to_num(_as_float(x))
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_mask(n: int) -> np.ndarray:
    return np.tril(np.ones((n, n), dtype=bool))


def scaled_dot_product_attention(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    if Q.dtype == np.float32 and K.dtype == np.float32 and V.dtype == np.float32:
        dtype = np.float32
    else:
        dtype = np.float64
    Q, K, V = Q.astype(dtype), K.astype(dtype), V.astype(dtype)
    d_k = Q.shape[-1]
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) / dtype(math.sqrt(d_k))
    if mask is not None:
        allowed = np.asarray(mask).astype(bool)
        scores = np.where(allowed, scores, dtype(-np.inf))
    A = softmax(scores, axis=-1)
    Z = np.matmul(A, V)
    return Z, A


def dot_product_variance(d_k: int, n_samples: int, rng: np.random.Generator) -> tuple[float, float]:
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.sum(q * k, axis=-1)
    var_raw = float(np.var(dots))
    var_scaled = float(np.var(dots / math.sqrt(d_k)))
    return var_raw, var_scaled
