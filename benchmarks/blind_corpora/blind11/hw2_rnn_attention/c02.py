"""hw2: attention in RNN encoder-decoders, with weights applied to column vectors as in the papers."""

from __future__ import annotations

import math

import numpy as np


def _prepare(*values):
    arrays = tuple(np.asarray(v) for v in values)
    if all(a.dtype == np.float32 for a in arrays):
        return arrays                                # float32 stays float32
    return tuple(a.astype(np.float64) for a in arrays)  # ints, lists, float64, mixtures


def additive_score(s, H, W_a, U_a, v_a) -> np.ndarray:
    s, H, W_a, U_a, v_a = _prepare(s, H, W_a, U_a, v_a)
    d_a = v_a.shape[0]
    if v_a.ndim != 1 or W_a.shape != (d_a, s.shape[-1]) or U_a.shape != (d_a, H.shape[-1]):
        raise ValueError("W_a, U_a, v_a do not fit s and H")
    Ws = (W_a @ s[..., :, None])                     # column W_a s: (..., d_a, 1)
    UH = U_a @ np.swapaxes(H, -1, -2)                # columns U_a h_j: (..., d_a, T)
    hidden = np.tanh(Ws + UH)                        # (..., d_a, T)
    return v_a @ hidden                              # v_a^T times each column: (..., T)


def dot_score(s, H) -> np.ndarray:
    s, H = _prepare(s, H)
    if s.shape[-1] != H.shape[-1]:
        raise ValueError(f"state sizes differ: {s.shape[-1]} and {H.shape[-1]}")
    return np.multiply(s[..., None, :], H).sum(axis=-1)


def general_score(s, H, W_a) -> np.ndarray:
    s, H, W_a = _prepare(s, H, W_a)
    if W_a.shape != (s.shape[-1], H.shape[-1]):
        raise ValueError("W_a must be (d_s, d_h)")
    projected = H @ W_a.T                            # rows (W_a h_j)^T: (..., T, d_s)
    return dot_score(s, projected)                   # s . (W_a h_j)


def concat_score(s, H, W_a, v_a) -> np.ndarray:
    s, H, W_a, v_a = _prepare(s, H, W_a, v_a)
    d_s, d_h = s.shape[-1], H.shape[-1]
    if W_a.ndim != 2 or W_a.shape[1] != d_s + d_h:
        raise ValueError("W_a must be (d_a, d_s + d_h)")
    W_s, W_h = np.split(W_a, [d_s], axis=1)
    return additive_score(s, H, W_s, W_h, v_a)


def attention_context(scores, H, mask=None) -> tuple[np.ndarray, np.ndarray]:
    scores, H = _prepare(scores, H)
    if scores.shape[-1] != H.shape[-2]:
        raise ValueError("scores and H disagree on T")
    if mask is None:
        allowed = np.ones(scores.shape, dtype=bool)
    else:
        scores, allowed = np.broadcast_arrays(scores, np.asarray(mask).astype(bool))
    top = np.max(scores, axis=-1, keepdims=True, where=allowed, initial=-math.inf)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.where(allowed, np.exp(scores - top), scores.dtype.type(0))
        alpha = e / e.sum(axis=-1, keepdims=True)
    c = np.sum(alpha[..., :, None] * H, axis=-2)
    return c, alpha
