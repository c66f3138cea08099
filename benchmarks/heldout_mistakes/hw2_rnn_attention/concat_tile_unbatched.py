import numpy as np


def _f(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = (_f(a) for a in (s, H, W_a, U_a, v_a))
    x = (s @ W_a.T)[..., None, :] + H @ U_a.T
    return np.tanh(x) @ v_a


def dot_score(s, H):
    s, H = _f(s), _f(H)
    return (H @ s[..., None])[..., 0]


def general_score(s, H, W_a):
    s, H, W_a = _f(s), _f(H), _f(W_a)
    return dot_score(s @ W_a, H)


def concat_score(s, H, W_a, v_a):
    s, H, W_a, v_a = (_f(a) for a in (s, H, W_a, v_a))
    T = H.shape[-2]
    # build [s; h_j] for every source position j
    S = np.tile(s, (T, 1))                     # (T, d_s)
    SH = np.concatenate([S, H], axis=-1)       # (T, d_s + d_h)
    return np.tanh(SH @ W_a.T) @ v_a


def attention_context(scores, H, mask=None):
    scores, H = _f(scores), _f(H)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    alpha = e / np.sum(e, axis=-1, keepdims=True)
    return np.sum(alpha[..., None] * H, axis=-2), alpha
