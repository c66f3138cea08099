"""Scaled dot-product attention (hw1)."""
import numpy as np


def softmax(x, axis=-1):
    x = np.asarray(x)
    dtype = np.float32 if x.dtype == np.float32 else np.float64
    x = x.astype(dtype, copy=True)  # own copy, so the in-place ops below are safe
    x -= x.max(axis=axis, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=axis, keepdims=True)
    return x


def causal_mask(n):
    if int(n) != n or n < 1:
        raise ValueError(f"bad sequence length {n}")
    pos = np.arange(n)
    return np.subtract.outer(pos, pos) >= 0


def scaled_dot_product_attention(Q, K, V, mask=None):
    arrs = []
    for a in (Q, K, V):
        a = np.asarray(a)
        arrs.append(a if a.dtype == np.float32 else a.astype(np.float64))
    Q, K, V = arrs
    axes = list(range(K.ndim))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    S = np.matmul(Q, np.transpose(K, axes)) * Q.shape[-1] ** -0.5
    if mask is not None:
        S = np.where(np.asarray(mask).astype(bool), S, -np.inf)
    A = softmax(S)
    return A @ V, A


def dot_product_variance(d_k, n_samples, rng):
    if min(d_k, n_samples - 1) < 1:
        raise ValueError("d_k >= 1 and n_samples >= 2 required")
    # one call: the first n_samples rows are the queries, the next ones the keys
    q, k = rng.standard_normal((2, n_samples, d_k))
    dots = (q * k).sum(-1)
    return float(dots.var()), float((dots / d_k ** 0.5).var())
