"""Scaled dot-product attention, written with einsum and a log-sum-exp softmax."""

import math

import numpy as np


def _as_float(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def softmax(x, axis: int = -1) -> np.ndarray:
    x = _as_float(x)
    with np.errstate(invalid="ignore"):
        shifted = x - np.max(x, axis=axis, keepdims=True)
        log_norm = np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
        return np.exp(shifted - log_norm)   # exp(x - logsumexp(x))


def causal_mask(n: int) -> np.ndarray:
    pos = np.arange(n)
    return np.greater_equal.outer(pos, pos)


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = _as_float(Q), _as_float(K), _as_float(V)
    scores = np.einsum("...id,...jd->...ij", Q, K) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask) != 0, scores, -np.inf)
    A = softmax(scores, axis=-1)
    Z = np.einsum("...ij,...jv->...iv", A, V)
    return Z, A


def dot_product_variance(d_k: int, n_samples: int, rng: np.random.Generator):
    # one draw of shape (2, n, d_k): its first half is q, its second half is k,
    # exactly as if they had been drawn one after the other
    q, k = rng.standard_normal((2, n_samples, d_k))
    dots = np.einsum("nd,nd->n", q, k)
    return float(np.var(dots)), float(np.var(dots / math.sqrt(d_k)))
