# hw2 - Bahdanau / Luong attention, written with einsum
import numpy as np


def _as_float(a):
    """float32 stays float32, anything else becomes float64."""
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = map(_as_float, (s, H, W_a, U_a, v_a))
    ws = np.einsum("ad,...d->...a", W_a, s)  # W_a s
    uh = np.einsum("ad,...td->...ta", U_a, H)  # U_a h_j for every j
    return np.einsum("a,...ta->...t", v_a, np.tanh(ws[..., None, :] + uh))


def dot_score(s, H):
    s, H = map(_as_float, (s, H))
    d = s.shape[-1]
    return np.einsum("...d,...td->...t", s, H) / np.sqrt(d).astype(s.dtype)  # scaled, as in the Transformer


def general_score(s, H, W_a):
    s, H, W_a = map(_as_float, (s, H, W_a))
    sW = s @ W_a  # s^T W_a, (..., d_h)
    return np.einsum("...j,...tj->...t", sW, H)


def concat_score(s, H, W_a, v_a):
    s, H, W_a, v_a = map(_as_float, (s, H, W_a, v_a))
    d_s = s.shape[-1]
    W_s, W_h = W_a[:, :d_s], W_a[:, d_s:]
    pre = np.einsum("ad,...d->...a", W_s, s)[..., None, :] + np.einsum("ad,...td->...ta", W_h, H)
    return np.einsum("a,...ta->...t", v_a, np.tanh(pre))


def attention_context(scores, H, mask=None):
    scores, H = map(_as_float, (scores, H))
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    m = np.max(scores, axis=-1, keepdims=True)
    e = np.exp(scores - m)
    alpha = e / e.sum(axis=-1, keepdims=True)
    c = np.einsum("...t,...td->...d", alpha, H)  # sum_j alpha_j h_j
    return c, alpha
