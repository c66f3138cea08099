import math

import numpy as np


def _float(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = map(_float, (s, H, W_a, U_a, v_a))
    hidden = np.tanh(np.expand_dims(s @ W_a.T, -2) + H @ U_a.T)
    return hidden @ v_a


def dot_score(s, H):
    s, H = _float(s), _float(H)
    d = s.shape[-1]
    scores = (H @ s[..., None])[..., 0]
    return scores / math.sqrt(d)  # scale so the scores don't blow up with d


def general_score(s, H, W_a):
    s, H, W_a = map(_float, (s, H, W_a))
    return dot_score(s @ W_a, H)


def concat_score(s, H, W_a, v_a):
    s, H, W_a, v_a = map(_float, (s, H, W_a, v_a))
    d_s = s.shape[-1]
    return additive_score(s, H, W_a[:, :d_s], W_a[:, d_s:], v_a)


def attention_context(scores, H, mask=None):
    scores, H = _float(scores), _float(H)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    shifted = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(shifted)
    alpha = w / w.sum(axis=-1, keepdims=True)
    return (alpha[..., None, :] @ H)[..., 0, :], alpha
