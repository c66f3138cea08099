"""Bahdanau / Luong scores written with einsum; concat builds [s; h_j] explicitly."""

import numpy as np


def _float(a) -> np.ndarray:
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def additive_score(s, H, W_a, U_a, v_a) -> np.ndarray:
    s, H, W_a, U_a, v_a = map(_float, (s, H, W_a, U_a, v_a))
    query = np.einsum("ad,...d->...a", W_a, s)[..., np.newaxis, :]   # (..., 1, d_a)
    keys = np.einsum("ah,...th->...ta", U_a, H)                       # (..., T, d_a)
    return np.einsum("a,...ta->...t", v_a, np.tanh(query + keys))


def dot_score(s, H) -> np.ndarray:
    s, H = map(_float, (s, H))
    return np.einsum("...d,...td->...t", s, H)


def general_score(s, H, W_a) -> np.ndarray:
    s, H, W_a = map(_float, (s, H, W_a))
    return np.einsum("...i,ij,...tj->...t", s, W_a, H)


def concat_score(s, H, W_a, v_a) -> np.ndarray:
    s, H, W_a, v_a = map(_float, (s, H, W_a, v_a))
    T = H.shape[-2]
    batch = np.broadcast_shapes(s.shape[:-1], H.shape[:-2])
    s_rep = np.broadcast_to(s[..., np.newaxis, :], batch + (T, s.shape[-1]))
    H_rep = np.broadcast_to(H, batch + H.shape[-2:])
    pairs = np.concatenate([s_rep, H_rep], axis=-1)                   # (..., T, d_s + d_h)
    return np.einsum("a,...ta->...t", v_a, np.tanh(np.einsum("ak,...tk->...ta", W_a, pairs)))


def attention_context(scores, H, mask=None):
    scores, H = map(_float, (scores, H))
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    with np.errstate(invalid="ignore"):
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        alpha = weights / weights.sum(axis=-1, keepdims=True)
    return np.einsum("...t,...td->...d", alpha, H), alpha
