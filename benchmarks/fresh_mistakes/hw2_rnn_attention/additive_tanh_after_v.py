r"""Assignment 2 · Attention in RNN encoder-decoders: Bahdanau and Luong."""

from __future__ import annotations

import numpy as np


def additive_score(s, H, W_a, U_a, v_a) -> np.ndarray:
    """Bahdanau: e_j = v_a^T tanh(W_a s + U_a h_j)."""
    s, H, W_a, U_a, v_a = (np.asarray(a) for a in (s, H, W_a, U_a, v_a))
    s, H, W_a, U_a, v_a = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (s, H, W_a, U_a, v_a))
    decoder_part = s @ W_a.T  # (..., d_a)
    decoder_part = decoder_part[..., None, :]  # (..., 1, d_a): broadcasts over T
    encoder_part = H @ U_a.T  # (..., T, d_a)
    hidden = decoder_part + encoder_part  # (..., T, d_a)
    return np.tanh(hidden @ v_a)  # (..., T)


def dot_score(s, H) -> np.ndarray:
    """Luong dot: e_j = s^T h_j."""
    s, H = (np.asarray(a) for a in (s, H))
    s, H = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (s, H))
    s_column = s[..., :, None]  # (..., d, 1)
    scores = H @ s_column  # (..., T, 1)
    return scores[..., 0]  # (..., T)


def general_score(s, H, W_a) -> np.ndarray:
    """Luong general: e_j = s^T W_a h_j."""
    s, H, W_a = (np.asarray(a) for a in (s, H, W_a))
    s, H, W_a = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (s, H, W_a))
    query = s @ W_a  # (..., d_h)
    query_column = query[..., :, None]  # (..., d_h, 1)
    scores = H @ query_column  # (..., T, 1)
    return scores[..., 0]  # (..., T)


def concat_score(s, H, W_a, v_a) -> np.ndarray:
    """Luong concat: e_j = v_a^T tanh(W_a [s; h_j])."""
    s, H, W_a, v_a = (np.asarray(a) for a in (s, H, W_a, v_a))
    s, H, W_a, v_a = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (s, H, W_a, v_a))
    d_s = s.shape[-1]
    W_s = W_a[:, :d_s]  # (d_a, d_s)
    W_h = W_a[:, d_s:]  # (d_a, d_h)
    decoder_part = (s @ W_s.T)[..., None, :]  # (..., 1, d_a)
    encoder_part = H @ W_h.T  # (..., T, d_a)
    hidden = np.tanh(decoder_part + encoder_part)
    return hidden @ v_a  # (..., T)


def attention_context(scores, H, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """alpha = softmax(scores) (masked), c = sum_j alpha_j h_j."""
    scores, H = (np.asarray(a) for a in (scores, H))
    scores, H = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (scores, H))
    if mask is not None:
        allowed = np.asarray(mask).astype(bool)
        scores = np.where(allowed, scores, -np.inf)
    with np.errstate(invalid="ignore"):
        shifted = scores - np.max(scores, axis=-1, keepdims=True)
        exps = np.exp(shifted)
        alpha = exps / np.sum(exps, axis=-1, keepdims=True)
    alpha_row = alpha[..., None, :]  # (..., 1, T)
    context = alpha_row @ H  # (..., 1, d_h)
    return context[..., 0, :], alpha
