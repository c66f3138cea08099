"""hw1: scaled dot-product attention, with explicit axis moves, a loop-built mask and np.where."""

from __future__ import annotations

import math

import numpy as np


def softmax(x, axis: int = -1) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(np.float64)
    last = np.moveaxis(x, axis, -1)
    top = last.max(axis=-1)[..., np.newaxis]
    with np.errstate(invalid="ignore"):
        gap = last - top                      # NaN only where the whole slice is -inf
    weights = np.where(np.isneginf(last), 0, np.exp(gap)).astype(x.dtype, copy=False)
    total = weights.sum(axis=-1)[..., np.newaxis]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = weights / total
    return np.moveaxis(out, -1, axis)


def causal_mask(n: int) -> np.ndarray:
    mask = np.zeros((n, n), dtype=bool)
    for i in range(n):                        # a loop over positions, not over a batch
        mask[i, : i + 1] = True
    return mask


def scaled_dot_product_attention(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    kinds = {Q.dtype, K.dtype, V.dtype}
    dtype = np.dtype(np.float32) if kinds == {np.dtype(np.float32)} else np.dtype(np.float64)
    Q, K, V = Q.astype(dtype), K.astype(dtype), V.astype(dtype)
    d_k = K.shape[-1]
    keys_t = np.transpose(K, tuple(range(K.ndim - 2)) + (K.ndim - 1, K.ndim - 2))
    scores = np.matmul(Q, keys_t) / np.asarray(math.sqrt(d_k), dtype=dtype)
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, np.asarray(-np.inf, dtype=dtype))
    A = softmax(scores)
    Z = A @ V
    return Z, A


def dot_product_variance(d_k: int, n_samples: int, rng: np.random.Generator) -> tuple[float, float]:
    q = rng.standard_normal(size=(n_samples, d_k))
    k = rng.standard_normal(size=(n_samples, d_k))
    dots = (q * k) @ np.ones(d_k)
    var_raw = np.var(dots, ddof=0)
    var_scaled = np.var(dots * (1.0 / math.sqrt(d_k)), ddof=0)
    return float(var_raw), float(var_scaled)
