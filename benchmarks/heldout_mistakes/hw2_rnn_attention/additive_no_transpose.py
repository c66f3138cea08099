import numpy as np


def _f(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = _f(s), _f(H), _f(W_a), _f(U_a), _f(v_a)
    dec = s @ W_a           # W_a s
    enc = H @ U_a           # U_a h_j for every j
    hidden = np.tanh(dec[..., None, :] + enc)
    return hidden @ v_a


def dot_score(s, H):
    s, H = _f(s), _f(H)
    return (H @ s[..., :, None])[..., 0]


def general_score(s, H, W_a):
    s, H, W_a = _f(s), _f(H), _f(W_a)
    return dot_score(s @ W_a, H)


def concat_score(s, H, W_a, v_a):
    s, H, W_a, v_a = _f(s), _f(H), _f(W_a), _f(v_a)
    d_s = s.shape[-1]
    W_s = W_a[:, :d_s]
    W_h = W_a[:, d_s:]
    hidden = np.tanh((s @ W_s.T)[..., None, :] + H @ W_h.T)
    return hidden @ v_a


def attention_context(scores, H, mask=None):
    scores, H = _f(scores), _f(H)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    alpha = e / e.sum(axis=-1, keepdims=True)
    c = np.sum(alpha[..., :, None] * H, axis=-2)
    return c, alpha
