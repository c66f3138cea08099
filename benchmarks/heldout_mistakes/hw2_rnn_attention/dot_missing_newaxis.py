import numpy as np


def _f(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = (_f(a) for a in (s, H, W_a, U_a, v_a))
    ws = (s @ W_a.T)[..., np.newaxis, :]
    uh = H @ U_a.T
    return np.tanh(ws + uh) @ v_a


def dot_score(s, H):
    s, H = _f(s), _f(H)
    # e_j = sum_d s_d * h_jd
    return np.sum(s * H, axis=-1)


def general_score(s, H, W_a):
    s, H, W_a = _f(s), _f(H), _f(W_a)
    return np.einsum("...h,...th->...t", s @ W_a, H)


def concat_score(s, H, W_a, v_a):
    s = _f(s)
    d_s = s.shape[-1]
    return additive_score(s, H, _f(W_a)[:, :d_s], _f(W_a)[:, d_s:], v_a)


def attention_context(scores, H, mask=None):
    scores, H = _f(scores), _f(H)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    alpha = e / np.sum(e, axis=-1, keepdims=True)
    c = np.sum(alpha[..., np.newaxis] * H, axis=-2)
    return c, alpha
