"""hw2: Attention in RNN encoder-decoders -- einsum everywhere, explicit result dtype, log-sum-exp softmax."""

from __future__ import annotations

import numpy as np


def _floats(*arrays):
    """The arrays converted to one float dtype: float32 when numpy's promotion of them is float32, else float64."""
    arrays = [np.asarray(a) for a in arrays]
    dtype = np.float32 if np.result_type(*arrays) == np.float32 else np.float64
    return [a.astype(dtype, copy=False) for a in arrays]


def additive_score(s, H, W_a, U_a, v_a) -> np.ndarray:
    s, H, W_a, U_a, v_a = _floats(s, H, W_a, U_a, v_a)
    query = np.einsum("...i,ai->...a", s, W_a)          # W_a s, (..., d_a)
    keys = np.einsum("...tj,aj->...ta", H, U_a)         # U_a h_j, (..., T, d_a)
    hidden = np.tanh(np.expand_dims(query, -2) + keys)
    return np.einsum("...ta,a->...t", hidden, v_a)


def dot_score(s, H) -> np.ndarray:
    s, H = _floats(s, H)
    return np.einsum("...d,...td->...t", s, H)


def general_score(s, H, W_a) -> np.ndarray:
    s, H, W_a = _floats(s, H, W_a)
    transformed = np.einsum("ij,...tj->...ti", W_a, H)  # W_a h_j, (..., T, d_s)
    return np.einsum("...i,...ti->...t", s, transformed)


def concat_score(s, H, W_a, v_a) -> np.ndarray:
    s, H, W_a, v_a = _floats(s, H, W_a, v_a)
    d_s, d_h = s.shape[-1], H.shape[-1]
    if W_a.ndim != 2 or W_a.shape[1] != d_s + d_h:
        raise ValueError(f"W_a must be (d_a, {d_s + d_h}), got {W_a.shape}")
    batch = np.broadcast_shapes(s.shape[:-1], H.shape[:-2])
    T = H.shape[-2]
    stacked = np.concatenate(
        [np.broadcast_to(s[..., None, :], batch + (T, d_s)), np.broadcast_to(H, batch + (T, d_h))], axis=-1
    )                                                   # [s; h_j], (..., T, d_s + d_h)
    hidden = np.tanh(np.einsum("ak,...tk->...ta", W_a, stacked))
    return np.einsum("a,...ta->...t", v_a, hidden)


def attention_context(scores, H, mask=None) -> tuple[np.ndarray, np.ndarray]:
    scores, H = _floats(scores, H)
    if mask is not None:
        scores = np.where(np.asarray(mask) != 0, scores, -np.inf)
    m = np.max(scores, axis=-1, keepdims=True)
    log_z = m + np.log(np.sum(np.exp(scores - m), axis=-1, keepdims=True))
    alpha = np.exp(scores - log_z)
    c = np.einsum("...t,...td->...d", alpha, H)
    return c, alpha
