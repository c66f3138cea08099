# hw2: Attention in RNN encoder-decoders: Bahdanau and Luong.
"""Correct submission in an unusual style: einsum everywhere, a loop over the hidden units of the additive
score, the dot score as a loop over the features, an explicit [s; h_j] concatenation, and a softmax
written as alpha_i = 1 / sum_k exp(e_k - e_i)."""

from __future__ import annotations

import numpy as np


def _as_float(*arrays):
    arrays = tuple(np.asarray(a) for a in arrays)
    keep32 = all(a.dtype == np.float32 for a in arrays)
    return tuple(np.asarray(a, dtype=np.float32 if keep32 else np.float64) for a in arrays)


def additive_score(s, H, W_a, U_a, v_a) -> np.ndarray:
    s, H, W_a, U_a, v_a = _as_float(s, H, W_a, U_a, v_a)
    total = None
    for a in range(v_a.shape[0]):            # one hidden unit at a time: v_a[a] * tanh(w_a . s + u_a . h_j)
        pre = np.einsum('...i,i->...', s, W_a[a])[..., None] + np.einsum('...ti,i->...t', H, U_a[a])
        term = v_a[a] * np.tanh(pre)
        total = term if total is None else total + term
    return total


def dot_score(s, H) -> np.ndarray:
    s, H = _as_float(s, H)
    total = np.zeros(np.broadcast_shapes(s.shape[:-1], H.shape[:-2]) + H.shape[-2:-1], dtype=H.dtype)
    for d in range(H.shape[-1]):             # one feature at a time: sum_d s_d h_jd
        total = total + s[..., d, None] * H[..., d]
    return total


def general_score(s, H, W_a) -> np.ndarray:
    s, H, W_a = _as_float(s, H, W_a)
    return dot_score(s, np.einsum('ij,...tj->...ti', W_a, H))   # s . (W_a h_j)


def concat_score(s, H, W_a, v_a) -> np.ndarray:
    s, H, W_a, v_a = _as_float(s, H, W_a, v_a)
    batch = np.broadcast_shapes(s.shape[:-1], H.shape[:-2])
    T = H.shape[-2]
    S = np.broadcast_to(s[..., None, :], batch + (T, s.shape[-1]))
    Hb = np.broadcast_to(H, batch + H.shape[-2:])
    X = np.concatenate([S, Hb], axis=-1)                          # [s; h_j], shape (..., T, d_s + d_h)
    return np.einsum('a,...ta->...t', v_a, np.tanh(np.einsum('ak,...tk->...ta', W_a, X)))


def attention_context(scores, H, mask=None) -> tuple[np.ndarray, np.ndarray]:
    scores, H = _as_float(scores, H)
    allowed = np.ones(scores.shape, dtype=bool) if mask is None else np.asarray(mask) != 0
    e = np.where(allowed, scores, -np.inf)
    allowed = np.broadcast_to(allowed, e.shape)
    with np.errstate(over='ignore', invalid='ignore', divide='ignore'):
        diff = e[..., None, :] - e[..., :, None]                  # [i, k] = e_k - e_i
        terms = np.where(allowed[..., None, :], np.exp(diff), 0)
        alpha = 1 / np.sum(terms, axis=-1)
    alpha = np.where(allowed, alpha, 0).astype(scores.dtype)
    c = np.einsum('...t,...td->...d', alpha, H)
    return c, alpha
