"""hw2: Attention in RNN encoder-decoders -- broadcast-and-sum, a loop over the attention features, np.where softmax."""

from __future__ import annotations

import numpy as np


def _float(x):
    x = np.asarray(x)
    if x.dtype == np.float32:
        return x
    return np.asarray(x, dtype=np.float64)


def _tanh_readout(p_s, p_h, v_a):
    """sum_k v_a[k] tanh(p_s[..., k] + p_h[..., :, k]), one attention feature k at a time."""
    total = 0.0
    for k in range(v_a.shape[0]):  # over the d_a features, not over positions or batches
        total = total + v_a[k] * np.tanh(p_s[..., None, k] + p_h[..., k])
    return total


def additive_score(s, H, W_a, U_a, v_a) -> np.ndarray:
    s, H, W_a, U_a, v_a = map(_float, (s, H, W_a, U_a, v_a))
    p_s = np.sum(s[..., None, :] * W_a, axis=-1)                  # (..., d_a)
    p_h = np.sum(H[..., :, None, :] * U_a, axis=-1)               # (..., T, d_a)
    return _tanh_readout(p_s, p_h, v_a)


def dot_score(s, H) -> np.ndarray:
    s, H = _float(s), _float(H)
    return np.sum(np.expand_dims(s, -2) * H, axis=-1)


def general_score(s, H, W_a) -> np.ndarray:
    s, H, W_a = _float(s), _float(H), _float(W_a)
    W_h = np.matmul(H, W_a.T)                                     # rows W_a h_j, (..., T, d_s)
    return dot_score(s, W_h)


def concat_score(s, H, W_a, v_a) -> np.ndarray:
    s, H, W_a, v_a = _float(s), _float(H), _float(W_a), _float(v_a)
    d_s = s.shape[-1]
    if W_a.shape[-1] != d_s + H.shape[-1]:
        raise ValueError("W_a must have d_s + d_h columns")
    # W_a [s; h_j] = W_a[:, :d_s] s + W_a[:, d_s:] h_j: the additive score in another notation
    W_s, W_h = np.split(W_a, [d_s], axis=1)
    return additive_score(s, H, W_s, W_h, v_a)


def attention_context(scores, H, mask=None) -> tuple[np.ndarray, np.ndarray]:
    scores, H = _float(scores), _float(H)
    allowed = np.ones(scores.shape, dtype=bool) if mask is None else np.asarray(mask).astype(bool)
    allowed = np.broadcast_to(allowed, np.broadcast_shapes(allowed.shape, scores.shape))
    scores = np.broadcast_to(scores, allowed.shape)
    top = np.max(np.where(allowed, scores, -np.inf), axis=-1, keepdims=True)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.where(allowed, np.exp(scores - top), 0)
        alpha = e / np.sum(e, axis=-1, keepdims=True)
    c = np.sum(alpha[..., :, None] * H, axis=-2)
    return c, alpha
