import numpy as np


def _f(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = (_f(a) for a in (s, H, W_a, U_a, v_a))
    dec = s @ W_a.T
    enc = H @ U_a.T
    return np.tanh(dec[..., None, :] + enc) @ v_a


def dot_score(s, H):
    s, H = _f(s), _f(H)
    return (H @ s[..., None])[..., 0]


def general_score(s, H, W_a):
    return dot_score(_f(s) @ _f(W_a), H)


def concat_score(s, H, W_a, v_a):
    H = _f(H)
    W_a = _f(W_a)
    d_h = H.shape[-1]
    # W_a [h_j; s] = W_h h_j + W_s s
    W_h = W_a[:, :d_h]
    W_s = W_a[:, d_h:]
    return additive_score(s, H, W_s, W_h, v_a)


def attention_context(scores, H, mask=None):
    scores, H = _f(scores), _f(H)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    alpha = e / e.sum(axis=-1, keepdims=True)
    return (alpha[..., None, :] @ H)[..., 0, :], alpha
