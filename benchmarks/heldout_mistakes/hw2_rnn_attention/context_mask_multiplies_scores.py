import numpy as np


def _cast(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = map(_cast, (s, H, W_a, U_a, v_a))
    e = np.tanh(np.matmul(s, W_a.T)[..., None, :] + np.matmul(H, U_a.T))
    return np.matmul(e, v_a)


def dot_score(s, H):
    s, H = map(_cast, (s, H))
    return np.matmul(H, s[..., None])[..., 0]


def general_score(s, H, W_a):
    s, H, W_a = map(_cast, (s, H, W_a))
    return dot_score(np.matmul(s, W_a), H)


def concat_score(s, H, W_a, v_a):
    s, H, W_a, v_a = map(_cast, (s, H, W_a, v_a))
    k = s.shape[-1]
    return additive_score(s, H, W_a[:, :k], W_a[:, k:], v_a)


def attention_context(scores, H, mask=None):
    scores, H = map(_cast, (scores, H))
    if mask is not None:
        scores = scores * np.asarray(mask, dtype=scores.dtype)  # drop the padded positions
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    e = np.exp(scores)
    alpha = e / np.sum(e, axis=-1, keepdims=True)
    c = np.matmul(alpha[..., None, :], H)[..., 0, :]
    return c, alpha
