import numpy as np


def _as_float(a):
    a = np.asarray(a)
    if a.dtype not in (np.float32, np.float64):
        a = a.astype(np.float64)
    return a


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = (_as_float(a) for a in (s, H, W_a, U_a, v_a))
    dec = np.einsum("...s,as->...a", s, W_a)
    enc = np.einsum("...th,ah->...ta", H, U_a)
    return np.tanh(dec[..., None, :] + enc) @ v_a


def dot_score(s, H):
    s, H = _as_float(s), _as_float(H)
    return (H @ s[..., None])[..., 0]


def general_score(s, H, W_a):
    s, H, W_a = _as_float(s), _as_float(H), _as_float(W_a)
    return dot_score(s @ W_a, H)


def concat_score(s, H, W_a, v_a):
    s = _as_float(s)
    W_a = _as_float(W_a)
    d_s = s.shape[-1]
    return additive_score(s, H, W_a[:, :d_s], W_a[:, d_s:], v_a)


def attention_context(scores, H, mask=None):
    scores, H = _as_float(scores), _as_float(H)
    if mask is not None:
        padding = ~np.asarray(mask, dtype=bool)
        np.copyto(scores, -np.inf, where=padding)
    m = scores.max(axis=-1, keepdims=True)
    e = np.exp(scores - m)
    alpha = e / e.sum(axis=-1, keepdims=True)
    c = np.einsum("...t,...td->...d", alpha, H)
    return c, alpha
