# hw2: Attention in RNN encoder-decoders: Bahdanau and Luong (reference-style implementation).
"""Bahdanau's additive score, Luong's dot, general and concat scores, and the context vector."""

from __future__ import annotations

import numpy as np


def _floats(*arrays):
    """The inputs as arrays of one float dtype: float32 when every input is float32, else float64."""
    arrays = [np.asarray(a) for a in arrays]
    dtype = np.float32 if all(a.dtype == np.float32 for a in arrays) else np.float64
    return [a.astype(dtype, copy=False) for a in arrays]


def additive_score(s, H, W_a, U_a, v_a) -> np.ndarray:
    r"""Bahdanau's additive alignment score e_j = v_a^T tanh(W_a s + U_a h_j); returns (..., T)."""
    s, H, W_a, U_a, v_a = _floats(s, H, W_a, U_a, v_a)
    decoder = s @ W_a.T                      # (..., d_a), the same for every j
    encoder = H @ U_a.T                      # (..., T, d_a)
    hidden = np.tanh(decoder[..., None, :] + encoder)
    return hidden @ v_a


def dot_score(s, H) -> np.ndarray:
    r"""Luong's dot alignment score e_j = s^T h_j; returns (..., T)."""
    s, H = _floats(s, H)
    return (H @ s[..., :, None])[..., 0]


def general_score(s, H, W_a) -> np.ndarray:
    r"""Luong's general alignment score e_j = s^T W_a h_j; returns (..., T)."""
    s, H, W_a = _floats(s, H, W_a)
    projected = s @ W_a                      # (..., d_h): s^T W_a
    return projected @ np.swapaxes(H, -1, -2)   # the score table S W_a H^T


def concat_score(s, H, W_a, v_a) -> np.ndarray:
    r"""Luong's concat alignment score e_j = v_a^T tanh(W_a [s; h_j]); returns (..., T)."""
    s, H, W_a, v_a = _floats(s, H, W_a, v_a)
    d_s = s.shape[-1]
    W_s, W_h = W_a[:, :d_s], W_a[:, d_s:]
    hidden = np.tanh((s @ W_s.T)[..., None, :] + H @ W_h.T)
    return hidden @ v_a


def attention_context(scores, H, mask=None) -> tuple[np.ndarray, np.ndarray]:
    r"""Softmax the scores over T (masked positions get -inf) and average the encoder states.

    Returns ``(c, alpha)`` with shapes ``(..., d_h)`` and ``(..., T)``.
    """
    scores, H = _floats(scores, H)
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    top = np.max(scores, axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)          # a fully masked row stays NaN (0 / 0)
    weights = np.exp(scores - top)
    alpha = weights / np.sum(weights, axis=-1, keepdims=True)
    c = (alpha[..., None, :] @ H)[..., 0, :]
    return c, alpha
