import numpy as np
from functools import reduce


def split_heads(X, num_heads):
    X = np.asarray(X)
    if X.dtype != np.float32:
        X = X.astype(np.float64)
    *batch, n, d_model = X.shape
    if num_heads <= 0 or d_model % num_heads:
        raise ValueError("bad num_heads")
    d_head = d_model // num_heads
    return np.einsum("...nhd->...hnd", X.reshape(*batch, n, num_heads, d_head)).copy()


def merge_heads(X):
    X = np.asarray(X)
    if X.dtype != np.float32:
        X = X.astype(np.float64)
    *batch, h, n, d = X.shape
    return np.einsum("...hnd->...nhd", X).reshape(*batch, n, h * d)


def _softmax_last(x):
    m = np.max(x, axis=-1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(x - m), axis=-1, keepdims=True))
    return np.exp(x - lse)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None):
    def fl(a):
        a = np.asarray(a)
        return a if a.dtype == np.float32 else a.astype(np.float64)

    X_q, X_kv, W_q, W_k, W_v, W_o = map(fl, (X_q, X_kv, W_q, W_k, W_v, W_o))
    Q, K, V = (
        split_heads(np.tensordot(X, W, axes=1), num_heads)
        for X, W in ((X_q, W_q), (X_kv, W_k), (X_kv, W_v))
    )
    d_head = Q.shape[-1]
    S = (Q / np.asarray(d_head ** 0.5, dtype=Q.dtype)) @ np.swapaxes(K, -1, -2)
    if mask is not None:
        M = np.asarray(mask) == 1
        if M.ndim < 2:
            M = M[np.newaxis, :]
        S = np.where(M[..., np.newaxis, :, :], S, -1e30)
    A = _softmax_last(S)
    Y = np.tensordot(merge_heads(A @ V), W_o, axes=1)
    return Y, A
