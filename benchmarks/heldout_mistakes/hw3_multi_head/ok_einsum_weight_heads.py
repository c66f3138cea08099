"""Multi-head attention without ever materialising the (n, d_model) projections:
the weights are reshaped into per-head blocks and contracted with einsum."""

import math

import numpy as np


def _float(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def split_heads(X, num_heads: int) -> np.ndarray:
    X = _float(X)
    return np.stack(np.split(X, num_heads, axis=-1), axis=-3)


def merge_heads(X) -> np.ndarray:
    X = _float(X)
    blocks = np.split(X, X.shape[-3], axis=-3)          # h pieces of shape (..., 1, n, d_head)
    return np.concatenate(blocks, axis=-1)[..., 0, :, :]


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None):
    X_q, X_kv, W_q, W_k, W_v, W_o = map(_float, (X_q, X_kv, W_q, W_k, W_v, W_o))
    d_model = W_q.shape[0]
    d_head = d_model // num_heads
    per_head = (d_model, num_heads, d_head)
    Q = np.einsum("...nd,dhk->...hnk", X_q, W_q.reshape(per_head))
    K = np.einsum("...nd,dhk->...hnk", X_kv, W_k.reshape(per_head))
    V = np.einsum("...nd,dhk->...hnk", X_kv, W_v.reshape(per_head))
    scores = np.einsum("...hqk,...hpk->...hqp", Q, K) / math.sqrt(d_head)
    if mask is not None:
        allowed = np.asarray(mask) != 0
        if allowed.ndim < 2:
            allowed = allowed.reshape(1, -1)
        scores = np.where(np.expand_dims(allowed, -3), scores, -np.inf)
    with np.errstate(invalid="ignore"):
        A = np.exp(scores - scores.max(axis=-1, keepdims=True))
        A = A / A.sum(axis=-1, keepdims=True)
    Z = np.einsum("...hqp,...hpk->...hqk", A, V)
    Y = np.einsum("...hqk,hkd->...qd", Z, W_o.reshape(num_heads, d_head, d_model))
    return Y, A
