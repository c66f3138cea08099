import numpy as np


def _to_float(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = (_to_float(x) for x in (s, H, W_a, U_a, v_a))
    Ws = np.einsum("ij,...j->...i", W_a, s)        # W_a s
    Uh = np.einsum("ij,...tj->...ti", U_a, H)      # U_a h_j
    return np.einsum("...ti,i->...t", np.tanh(Ws[..., None, :] + Uh), v_a)


def dot_score(s, H):
    s, H = _to_float(s), _to_float(H)
    return np.einsum("...d,...td->...t", s, H)


def general_score(s, H, W_a):
    s, H, W_a = _to_float(s), _to_float(H), _to_float(W_a)
    Ws = np.einsum("ij,...j->...i", W_a, s)        # W_a s
    return dot_score(Ws, H)


def concat_score(s, H, W_a, v_a):
    s = _to_float(s)
    W_a = _to_float(W_a)
    d_s = s.shape[-1]
    return additive_score(s, H, W_a[:, :d_s], W_a[:, d_s:], v_a)


def attention_context(scores, H, mask=None):
    scores, H = _to_float(scores), _to_float(H)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    z = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    alpha = z / z.sum(axis=-1, keepdims=True)
    c = np.einsum("...t,...td->...d", alpha, H)
    return c, alpha
