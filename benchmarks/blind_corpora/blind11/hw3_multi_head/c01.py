"""hw3 multi-head attention: einsum everywhere, additive mask bias in the scores' dtype, log-sum-exp softmax."""

from __future__ import annotations

import math

import numpy as np


def _floating(*arrays):
    """The arrays as one floating dtype: float32 only when every input already is float32 (or narrower)."""
    arrays = [np.asarray(a) for a in arrays]
    common = np.result_type(*arrays)
    target = np.dtype(np.float32) if common == np.float32 else np.dtype(np.float64)
    return [a if a.dtype == target else a.astype(target) for a in arrays]


def split_heads(X, num_heads: int) -> np.ndarray:
    (X,) = _floating(X)
    *lead, n, d_model = X.shape
    if num_heads < 1 or d_model % num_heads:
        raise ValueError("num_heads must be a positive divisor of d_model")
    blocks = X.reshape(*lead, n, num_heads, d_model // num_heads)
    return np.einsum("...nhe->...hne", blocks)


def merge_heads(X) -> np.ndarray:
    (X,) = _floating(X)
    if X.ndim < 3:
        raise ValueError("merge_heads expects (..., num_heads, n, d_head)")
    heads_first = np.moveaxis(X, -3, 0)  # (h, ..., n, d_head)
    return np.concatenate(list(heads_first), axis=-1)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None) -> tuple[np.ndarray, np.ndarray]:
    X_q, X_kv, W_q, W_k, W_v, W_o = _floating(X_q, X_kv, W_q, W_k, W_v, W_o)
    d_model = W_q.shape[0]
    if num_heads < 1 or d_model % num_heads:
        raise ValueError("num_heads must be a positive divisor of d_model")
    scale = 1.0 / math.sqrt(d_model // num_heads)

    Q = split_heads(np.einsum("...nd,de->...ne", X_q, W_q), num_heads)
    K = split_heads(np.einsum("...nd,de->...ne", X_kv, W_k), num_heads)
    V = split_heads(np.einsum("...nd,de->...ne", X_kv, W_v), num_heads)

    scores = np.einsum("...qe,...ke->...qk", Q, K) * scale
    if mask is not None:
        keep = np.asarray(mask) != 0
        keep = keep.reshape((1,) * max(0, 2 - keep.ndim) + keep.shape)  # a 1-D key mask -> (1, n_kv)
        keep = np.expand_dims(keep, axis=-3)  # the same mask for every head
        bias = np.where(keep, 0.0, -np.inf).astype(scores.dtype)
        scores = scores + bias

    top = np.max(scores, axis=-1, keepdims=True)
    log_norm = top + np.log(np.sum(np.exp(scores - top), axis=-1, keepdims=True))
    A = np.exp(scores - log_norm)

    Z = np.einsum("...qk,...ke->...qe", A, V)
    Y = np.tensordot(merge_heads(Z), W_o, axes=([-1], [0]))
    return Y, A
