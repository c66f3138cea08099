import math

import numpy as np


def _to_float(x):
    x = np.asarray(x)
    return x if x.dtype == np.float32 else x.astype(np.float64)


def split_heads(X, num_heads):
    X = _to_float(X)
    B, n, d_model = X.shape
    d_head = d_model // num_heads
    # x.view(B, n, h, d_head).transpose(1, 2)
    return X.reshape(B, n, num_heads, d_head).transpose(0, 2, 1, 3)


def merge_heads(X):
    X = _to_float(X)
    moved = np.swapaxes(X, -3, -2)
    return moved.reshape(moved.shape[:-2] + (moved.shape[-2] * moved.shape[-1],))


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv, W_q, W_k, W_v, W_o = (_to_float(a) for a in (X_q, X_kv, W_q, W_k, W_v, W_o))
    q = split_heads(X_q @ W_q, num_heads)
    k = split_heads(X_kv @ W_k, num_heads)
    v = split_heads(X_kv @ W_v, num_heads)
    d_head = q.shape[-1]
    att = q @ np.swapaxes(k, -1, -2) * (1.0 / math.sqrt(d_head))
    if mask is not None:
        mask = np.asarray(mask).astype(bool)
        if mask.ndim == 1:
            mask = mask[np.newaxis, :]
        att = np.where(mask[..., np.newaxis, :, :], att, -np.inf)
    att = att - att.max(axis=-1, keepdims=True)
    att = np.exp(att)
    att = att / att.sum(axis=-1, keepdims=True)
    return merge_heads(att @ v) @ W_o, att
