"""Assignment 3 · Multi-head attention."""

from __future__ import annotations

import math

import numpy as np


def _float_array(X) -> np.ndarray:
    """Keep float32; compute everything else in float64."""
    X = np.asarray(X)
    return X if X.dtype == np.float32 else np.asarray(X, dtype=np.float64)


def split_heads(X, num_heads: int) -> np.ndarray:
    """(..., n, d_model) -> (..., num_heads, n, d_model // num_heads), by fancy indexing."""
    X = _float_array(X)
    d_model = X.shape[-1]
    if num_heads <= 0 or d_model % num_heads:
        raise ValueError(f"num_heads={num_heads} must be a positive divisor of d_model={d_model}")
    columns = np.arange(d_model).reshape(num_heads, d_model // num_heads)  # row i: the features of head i
    picked = X[..., columns]  # (..., n, h, d_head)
    return np.moveaxis(picked, -2, -3)


def merge_heads(X) -> np.ndarray:
    """(..., num_heads, n, d_head) -> (..., n, num_heads * d_head), with einsum."""
    X = _float_array(X)
    if X.ndim < 3:
        raise ValueError("merge_heads expects (..., num_heads, n, d_head)")
    num_heads, n, d_head = X.shape[-3:]
    positions_first = np.einsum("...hnd->...nhd", X)
    return positions_first.reshape(*X.shape[:-3], n, num_heads * d_head)


def _log_softmax(scores: np.ndarray) -> np.ndarray:
    """Stable log-softmax over the last axis (rows of -inf stay -inf)."""
    top = np.max(scores, axis=-1, keepdims=True)
    with np.errstate(divide="ignore"):
        return scores - (top + np.log(np.sum(np.exp(scores - top), axis=-1, keepdims=True)))


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Project, split, attend per head, merge, project out; the mask enters as log(mask)."""
    arrays = [_float_array(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o)]
    dtype = np.result_type(*arrays)
    X_q, X_kv, W_q, W_k, W_v, W_o = (a.astype(dtype, copy=False) for a in arrays)
    d_model = W_q.shape[0]
    if num_heads <= 0 or d_model % num_heads:
        raise ValueError(f"num_heads={num_heads} must be a positive divisor of d_model={d_model}")
    inv_scale = 1.0 / math.sqrt(d_model // num_heads)

    Q = split_heads(np.matmul(X_q, W_q), num_heads) * inv_scale
    K = split_heads(np.matmul(X_kv, W_k), num_heads)
    V = split_heads(np.matmul(X_kv, W_v), num_heads)
    scores = np.einsum("...qd,...kd->...qk", Q, K)

    if mask is not None:
        allowed = np.asarray(mask) != 0
        allowed = allowed.reshape((1,) * max(0, 2 - allowed.ndim) + allowed.shape)  # at least (n_q, n_kv)
        allowed = np.expand_dims(allowed, axis=-3)  # the same mask for every head
        with np.errstate(divide="ignore"):
            scores = scores + np.log(allowed.astype(dtype))  # log 1 = 0, log 0 = -inf

    A = np.exp(_log_softmax(scores))
    Y = np.matmul(merge_heads(np.matmul(A, V)), W_o)
    return Y, A
