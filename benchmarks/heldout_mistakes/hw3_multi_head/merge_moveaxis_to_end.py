import math

import numpy as np


def _float(x):
    x = np.asarray(x)
    if x.dtype == np.float32:
        return x
    return x.astype(np.float64)


def split_heads(X, num_heads):
    X = _float(X)
    n, d_model = X.shape[-2:]
    blocks = X.reshape(X.shape[:-2] + (n, num_heads, d_model // num_heads))
    return np.swapaxes(blocks, -3, -2)


def merge_heads(X):
    X = _float(X)
    n = X.shape[-2]
    # move the head axis to the end and flatten it together with the features
    Xm = np.moveaxis(X, -3, -1)          # (..., n, d_head, h)
    return Xm.reshape(X.shape[:-3] + (n, -1))


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv, W_q, W_k, W_v, W_o = map(_float, (X_q, X_kv, W_q, W_k, W_v, W_o))
    Q = split_heads(np.matmul(X_q, W_q), num_heads)
    K = split_heads(np.matmul(X_kv, W_k), num_heads)
    V = split_heads(np.matmul(X_kv, W_v), num_heads)
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) / math.sqrt(Q.shape[-1])
    if mask is not None:
        keep = np.asarray(mask).astype(bool)
        if keep.ndim == 1:
            keep = keep[np.newaxis, :]
        scores = np.where(np.expand_dims(keep, -3), scores, -np.inf)
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    A = np.exp(scores)
    A = A / np.sum(A, axis=-1, keepdims=True)
    return np.matmul(merge_heads(np.matmul(A, V)), W_o), A
