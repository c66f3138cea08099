"""hw2: Attention in RNN encoder-decoders (reference-style correct solution written blind)."""

from __future__ import annotations

import numpy as np


def _as_float(x):
    """float32 stays float32; everything else (ints, lists, float64, bool) becomes float64."""
    x = np.asarray(x)
    if x.dtype == np.float32:
        return x
    return x.astype(np.float64)


def additive_score(s, H, W_a, U_a, v_a) -> np.ndarray:
    s, H, W_a, U_a, v_a = (_as_float(a) for a in (s, H, W_a, U_a, v_a))
    hidden = (s @ W_a.T)[..., None, :] + H @ U_a.T  # (..., T, d_a)
    return np.tanh(hidden) @ v_a


def dot_score(s, H) -> np.ndarray:
    s, H = _as_float(s), _as_float(H)
    return (H @ s[..., :, None])[..., 0]


def general_score(s, H, W_a) -> np.ndarray:
    s, H, W_a = _as_float(s), _as_float(H), _as_float(W_a)
    projected = s @ W_a  # s^T W_a, shape (..., d_h)
    # s^T W_a h_j is just a dot product of h_j with the projected state
    return dot_score(H, projected)


def concat_score(s, H, W_a, v_a) -> np.ndarray:
    s, H, W_a, v_a = _as_float(s), _as_float(H), _as_float(W_a), _as_float(v_a)
    d_s, d_h = s.shape[-1], H.shape[-1]
    if W_a.shape[-1] != d_s + d_h:
        raise ValueError(f"W_a must have d_s + d_h = {d_s + d_h} columns, got {W_a.shape}")
    W_s, W_h = W_a[:, :d_s], W_a[:, d_s:]
    hidden = (s @ W_s.T)[..., None, :] + H @ W_h.T
    return np.tanh(hidden) @ v_a


def attention_context(scores, H, mask=None) -> tuple[np.ndarray, np.ndarray]:
    scores, H = _as_float(scores), _as_float(H)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    m = np.max(scores, axis=-1, keepdims=True)
    e = np.exp(scores - m)
    alpha = e / np.sum(e, axis=-1, keepdims=True)
    c = (alpha[..., None, :] @ H)[..., 0, :]
    return c, alpha
