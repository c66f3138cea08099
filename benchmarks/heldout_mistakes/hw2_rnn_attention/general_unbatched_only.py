import numpy as np


def _f(x):
    x = np.asarray(x)
    return x.astype(np.float64) if x.dtype != np.float32 else x


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = _f(s), _f(H), _f(W_a), _f(U_a), _f(v_a)
    a = (s @ W_a.T)[..., None, :] + H @ U_a.T
    return np.tanh(a) @ v_a


def dot_score(s, H):
    s, H = _f(s), _f(H)
    return (H @ s[..., None]).squeeze(-1)


def general_score(s, H, W_a):
    s, H, W_a = _f(s), _f(H), _f(W_a)
    # W_a h_j for every j, then dot with s
    WH = H @ W_a.T          # (..., T, d_s)
    return WH @ s           # (..., T)


def concat_score(s, H, W_a, v_a):
    s, H, W_a, v_a = _f(s), _f(H), _f(W_a), _f(v_a)
    d_s = s.shape[-1]
    return additive_score(s, H, W_a[:, :d_s], W_a[:, d_s:], v_a)


def attention_context(scores, H, mask=None):
    scores, H = _f(scores), _f(H)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    alpha = np.exp(scores)
    alpha /= alpha.sum(axis=-1, keepdims=True)
    return (alpha[..., None] * H).sum(axis=-2), alpha
