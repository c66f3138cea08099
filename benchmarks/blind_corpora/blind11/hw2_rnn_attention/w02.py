"""hw2: attention in RNN encoder-decoders (Bahdanau and Luong): a straightforward correct solution."""

from __future__ import annotations

import numpy as np


def _float_dtype(*arrays):
    """float32 when the inputs promote to float32, float64 for everything else."""
    return np.float32 if np.result_type(*arrays) == np.float32 else np.float64


def _as_float(*values):
    arrays = [np.asarray(v) for v in values]
    dtype = _float_dtype(*arrays)
    return [a.astype(dtype, copy=False) for a in arrays]


def additive_score(s, H, W_a, U_a, v_a) -> np.ndarray:
    s, H, W_a, U_a, v_a = _as_float(s, H, W_a, U_a, v_a)
    if W_a.ndim != 2 or U_a.ndim != 2 or v_a.ndim != 1 or not (W_a.shape[0] == U_a.shape[0] == v_a.shape[0]):
        raise ValueError("W_a, U_a and v_a must be (d_a, d_s), (d_a, d_h) and (d_a,)")
    if W_a.shape[1] != s.shape[-1] or U_a.shape[1] != H.shape[-1]:
        raise ValueError("W_a must be (d_a, d_s) and U_a (d_a, d_h)")
    ws = s @ W_a.T                      # (..., d_a)
    uh = H @ U_a.T                      # (..., T, d_a)
    x = ws[..., None, :] + uh           # (..., T, d_a)
    hidden = (np.exp(x) - np.exp(-x)) / (np.exp(x) + np.exp(-x))   # tanh = sinh / cosh
    return hidden @ v_a                 # (..., T)


def dot_score(s, H) -> np.ndarray:
    s, H = _as_float(s, H)
    if s.shape[-1] != H.shape[-1]:
        raise ValueError("s and H must have the same state size")
    return (H @ s[..., :, None])[..., 0]


def general_score(s, H, W_a) -> np.ndarray:
    s, H, W_a = _as_float(s, H, W_a)
    if W_a.ndim != 2 or W_a.shape != (s.shape[-1], H.shape[-1]):
        raise ValueError("W_a must be (d_s, d_h)")
    sW = s @ W_a                        # s^T W_a: (..., d_h)
    return (H @ sW[..., :, None])[..., 0]


def concat_score(s, H, W_a, v_a) -> np.ndarray:
    s, H, W_a, v_a = _as_float(s, H, W_a, v_a)
    d_s, d_h = s.shape[-1], H.shape[-1]
    if W_a.ndim != 2 or W_a.shape[1] != d_s + d_h:
        raise ValueError("W_a must be (d_a, d_s + d_h)")
    if v_a.ndim != 1 or v_a.shape[0] != W_a.shape[0]:
        raise ValueError("v_a must be (d_a,)")
    W_s, W_h = W_a[:, :d_s], W_a[:, d_s:]     # W_a [s; h_j] = W_s s + W_h h_j
    hidden = np.tanh((s @ W_s.T)[..., None, :] + H @ W_h.T)   # (..., T, d_a)
    return hidden @ v_a


def attention_context(scores, H, mask=None) -> tuple[np.ndarray, np.ndarray]:
    scores, H = _as_float(scores, H)
    if scores.shape[-1] != H.shape[-2]:
        raise ValueError("scores and H disagree on T")
    if mask is not None:
        mask = np.asarray(mask).astype(bool)
        scores = np.where(mask, scores, np.array(-np.inf, dtype=scores.dtype))
    with np.errstate(invalid="ignore"):
        shifted = scores - np.max(scores, axis=-1, keepdims=True)
        e = np.exp(shifted)
        alpha = e / np.sum(e, axis=-1, keepdims=True)
    c = (alpha[..., None, :] @ H)[..., 0, :]
    return c, alpha
