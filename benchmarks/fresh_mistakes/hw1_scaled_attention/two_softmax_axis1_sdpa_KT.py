r"""Assignment 1 · Scaled dot-product attention (缩放点积注意力).

Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V
"""

from __future__ import annotations

import math

import numpy as np


def softmax(x, axis: int = -1) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(np.float64)
    # rows are the queries, so normalise each row
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


def causal_mask(n: int) -> np.ndarray:
    """mask[i, j] is True exactly when j <= i."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    query_position = np.arange(n)[:, None]  # (n, 1)
    key_position = np.arange(n)[None, :]  # (1, n)
    return key_position <= query_position  # (n, n)


def scaled_dot_product_attention(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    Q, K, V = (np.asarray(a) for a in (Q, K, V))
    Q, K, V = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (Q, K, V))
    d_k = Q.shape[-1]
    scores = Q @ K.T / math.sqrt(d_k)  # (L_q, L_k)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights


def dot_product_variance(d_k: int, n_samples: int, rng: np.random.Generator) -> tuple[float, float]:
    """Estimate Var(q . k) with and without the 1/sqrt(d_k) scaling."""
    if d_k < 1 or n_samples < 2:
        raise ValueError(f"need d_k >= 1 and n_samples >= 2, got d_k={d_k}, n_samples={n_samples}")
    q = rng.standard_normal((n_samples, d_k))  # (n_samples, d_k)
    k = rng.standard_normal((n_samples, d_k))  # (n_samples, d_k)
    dots = np.sum(q * k, axis=-1)  # (n_samples,)
    scaled_dots = dots / math.sqrt(d_k)
    return float(np.var(dots)), float(np.var(scaled_dots))
