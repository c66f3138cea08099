# HW1 scaled attention
import math
from typing import Tuple

import numpy as np


def softmax(x, axis: int = -1) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(np.float64)
    # move the softmax axis to the end, work on the last axis, move it back
    y = np.moveaxis(x, axis, -1)
    y = y - y.max(axis=-1)[..., np.newaxis]
    e = np.exp(y)
    out = e / e.sum(axis=-1)[..., np.newaxis]
    return np.moveaxis(out, -1, axis)


def causal_mask(n: int) -> np.ndarray:
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n <= 0:
        raise ValueError("n must be a positive int")
    # the forbidden part is the strict upper triangle; allowed = its complement
    return ~np.triu(np.ones((n, n), dtype=bool), k=1)


def scaled_dot_product_attention(Q, K, V, mask=None) -> Tuple[np.ndarray, np.ndarray]:
    Q = np.asarray(Q)
    K = np.asarray(K)
    V = np.asarray(V)
    if Q.dtype != np.float32:
        Q = Q.astype(np.float64)
    if K.dtype != np.float32:
        K = K.astype(np.float64)
    if V.dtype != np.float32:
        V = V.astype(np.float64)
    d_k = Q.shape[-1]
    Qs = Q / math.sqrt(d_k)  # scaling Q first is the same as scaling the scores
    scores = np.matmul(Qs, np.swapaxes(K, -1, -2))
    if mask is not None:
        allowed = np.asarray(mask) == 1
        scores = np.where(allowed, scores, -1e30)
    A = softmax(scores, axis=-1)
    return np.matmul(A, V), A


def dot_product_variance(d_k, n_samples, rng):
    if d_k < 1 or n_samples < 2:
        raise ValueError("d_k must be >= 1 and n_samples >= 2")
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.array([np.dot(a, b) for a, b in zip(q, k)])
    scaled = dots / math.sqrt(d_k)
    return float(np.var(dots, ddof=1)), float(np.var(scaled, ddof=1))
