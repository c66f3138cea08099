import numpy as np


def as_float(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = [as_float(a) for a in (s, H, W_a, U_a, v_a)]
    part_s = np.tensordot(s, W_a, axes=([-1], [1]))       # (..., d_a)
    part_h = np.tensordot(H, U_a, axes=([-1], [1]))       # (..., T, d_a)
    hidden = np.tanh(part_s[..., None, :] + part_h)
    return np.tensordot(hidden, v_a, axes=([-1], [0]))    # (..., T)


def dot_score(s, H):
    s, H = as_float(s), as_float(H)
    return np.tensordot(H, s, axes=([-1], [-1]))


def general_score(s, H, W_a):
    s, H, W_a = as_float(s), as_float(H), as_float(W_a)
    sw = np.tensordot(s, W_a, axes=([-1], [0]))            # (..., d_h)
    return np.matmul(H, sw[..., None])[..., 0]


def concat_score(s, H, W_a, v_a):
    s = as_float(s)
    d_s = s.shape[-1]
    W_a = as_float(W_a)
    return additive_score(s, H, W_a[:, :d_s], W_a[:, d_s:], v_a)


def attention_context(scores, H, mask=None):
    scores, H = as_float(scores), as_float(H)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    m = np.max(scores, axis=-1, keepdims=True)
    ex = np.exp(scores - m)
    alpha = ex / np.sum(ex, axis=-1, keepdims=True)
    c = np.matmul(alpha[..., None, :], H)[..., 0, :]
    return c, alpha
