"""hw3: heads via np.split / np.concatenate, attention with einsum."""
import math

import numpy as np


def _as_float(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def split_heads(X, num_heads):
    X = _as_float(X)
    if num_heads < 1 or X.shape[-1] % num_heads:
        raise ValueError("num_heads must divide d_model")
    # np.split cuts the features into consecutive blocks, one per head
    return np.stack(np.split(X, num_heads, axis=-1), axis=-3)


def merge_heads(X):
    X = _as_float(X)
    if X.ndim < 3:
        raise ValueError("merge_heads needs (..., h, n, d_head)")
    heads = np.moveaxis(X, -3, 0)  # head axis first, so we can list the heads
    return np.concatenate(list(heads), axis=-1)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv, W_q, W_k, W_v, W_o = (_as_float(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o))
    Q = split_heads(np.einsum("...nd,de->...ne", X_q, W_q), num_heads)
    K = split_heads(np.einsum("...nd,de->...ne", X_kv, W_k), num_heads)
    V = split_heads(np.einsum("...nd,de->...ne", X_kv, W_v), num_heads)
    scores = np.einsum("...hqd,...hkd->...hqk", Q, K) / math.sqrt(Q.shape[-1])
    if mask is not None:
        allowed = np.asarray(mask).astype(bool)
        allowed = allowed.reshape((1,) * max(0, 2 - allowed.ndim) + allowed.shape)
        allowed = np.expand_dims(allowed, axis=-3)  # one head axis, broadcast over the heads
        scores = np.where(allowed, scores, np.finfo(scores.dtype).min)
    scores = scores - scores.max(axis=-1, keepdims=True)
    A = np.exp(scores)
    A /= A.sum(axis=-1, keepdims=True)
    Y = np.einsum("...ne,ef->...nf", merge_heads(np.einsum("...hqk,...hkd->...hqd", A, V)), W_o)
    return Y, A
