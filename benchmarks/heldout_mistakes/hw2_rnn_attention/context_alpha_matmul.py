import numpy as np


def _f(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = (_f(a) for a in (s, H, W_a, U_a, v_a))
    return np.tanh((s @ W_a.T)[..., None, :] + H @ U_a.T) @ v_a


def dot_score(s, H):
    s, H = _f(s), _f(H)
    return np.squeeze(H @ s[..., None], axis=-1)


def general_score(s, H, W_a):
    s, H, W_a = _f(s), _f(H), _f(W_a)
    return dot_score(s @ W_a, H)


def concat_score(s, H, W_a, v_a):
    s, W_a = _f(s), _f(W_a)
    n = s.shape[-1]
    return additive_score(s, H, W_a[:, :n], W_a[:, n:], v_a)


def attention_context(scores, H, mask=None):
    scores, H = _f(scores), _f(H)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    shifted = scores - np.max(scores, axis=-1, keepdims=True)
    exp_scores = np.exp(shifted)
    alpha = exp_scores / np.sum(exp_scores, axis=-1, keepdims=True)
    c = alpha @ H   # sum_j alpha_j h_j
    return c, alpha
