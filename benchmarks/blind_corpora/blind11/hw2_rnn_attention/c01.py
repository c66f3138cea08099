"""hw2: attention in RNN encoder-decoders, written with einsum and an explicit concatenation."""

from __future__ import annotations

import numpy as np


def _common_float(*values):
    """Arrays in one float dtype: float32 if everything is float32 (or narrower floats), else float64."""
    arrays = [np.asarray(v) for v in values]
    dtype = np.result_type(*arrays, np.float16)
    if dtype != np.float32:
        dtype = np.dtype(np.float64)
    return [np.asarray(a, dtype=dtype) for a in arrays]


def additive_score(s, H, W_a, U_a, v_a) -> np.ndarray:
    s, H, W_a, U_a, v_a = _common_float(s, H, W_a, U_a, v_a)
    if (W_a.ndim, U_a.ndim, v_a.ndim) != (2, 2, 1) or len({W_a.shape[0], U_a.shape[0], v_a.shape[0]}) != 1:
        raise ValueError("weights must be W_a (d_a, d_s), U_a (d_a, d_h), v_a (d_a,)")
    if W_a.shape[1] != s.shape[-1] or U_a.shape[1] != H.shape[-1]:
        raise ValueError("W_a must have d_s columns and U_a d_h columns")  # einsum would broadcast size 1
    decoder_part = np.einsum("...i,ai->...a", s, W_a)          # W_a s       (..., d_a)
    encoder_part = np.einsum("...tj,aj->...ta", H, U_a)        # U_a h_j     (..., T, d_a)
    hidden = np.tanh(np.expand_dims(decoder_part, -2) + encoder_part)
    return np.einsum("...ta,a->...t", hidden, v_a)


def dot_score(s, H) -> np.ndarray:
    s, H = _common_float(s, H)
    if s.shape[-1] != H.shape[-1]:
        raise ValueError("s and H must have the same state size")  # einsum would broadcast a size 1
    return np.einsum("...d,...td->...t", s, H)


def general_score(s, H, W_a) -> np.ndarray:
    s, H, W_a = _common_float(s, H, W_a)
    if W_a.shape != (s.shape[-1], H.shape[-1]):
        raise ValueError("W_a must be (d_s, d_h)")
    return np.einsum("...i,ij,...tj->...t", s, W_a, H)


def concat_score(s, H, W_a, v_a) -> np.ndarray:
    s, H, W_a, v_a = _common_float(s, H, W_a, v_a)
    d_s, d_h = s.shape[-1], H.shape[-1]
    if W_a.ndim != 2 or W_a.shape[-1] != d_s + d_h or v_a.ndim != 1 or v_a.shape[0] != W_a.shape[0]:
        raise ValueError("W_a must be (d_a, d_s + d_h) and v_a (d_a,)")
    batch = np.broadcast_shapes(s.shape[:-1], H.shape[:-2])
    T = H.shape[-2]
    s_rows = np.broadcast_to(s[..., None, :], batch + (T, d_s))
    h_rows = np.broadcast_to(H, batch + (T, d_h))
    joined = np.concatenate([s_rows, h_rows], axis=-1)         # [s; h_j]    (..., T, d_s + d_h)
    hidden = np.tanh(np.einsum("...tk,ak->...ta", joined, W_a))
    return np.einsum("...ta,a->...t", hidden, v_a)


def attention_context(scores, H, mask=None) -> tuple[np.ndarray, np.ndarray]:
    scores, H = _common_float(scores, H)
    if scores.shape[-1] != H.shape[-2]:
        raise ValueError("scores and H must have the same number of positions T")
    if mask is not None:
        allowed = np.not_equal(mask, 0)
        scores = np.where(allowed, scores, scores.dtype.type(-np.inf))
    with np.errstate(invalid="ignore", divide="ignore"):
        top = np.max(scores, axis=-1, keepdims=True)
        shifted = scores - top
        log_norm = np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
        alpha = np.exp(shifted - log_norm)                      # log-softmax, then exp
    c = np.einsum("...t,...td->...d", alpha, H)
    return c, alpha
