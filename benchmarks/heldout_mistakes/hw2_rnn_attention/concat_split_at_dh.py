import numpy as np


def _float(a):
    a = np.asarray(a)
    if a.dtype == np.float32:
        return a
    return a.astype(np.float64)


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = [_float(a) for a in (s, H, W_a, U_a, v_a)]
    s_proj = np.dot(s, W_a.T)[..., np.newaxis, :]
    h_proj = np.dot(H, U_a.T)
    return np.dot(np.tanh(s_proj + h_proj), v_a)


def dot_score(s, H):
    s, H = _float(s), _float(H)
    return np.matmul(H, s[..., :, np.newaxis])[..., 0]


def general_score(s, H, W_a):
    s, H, W_a = _float(s), _float(H), _float(W_a)
    return dot_score(np.dot(s, W_a), H)


def concat_score(s, H, W_a, v_a):
    s, H, W_a, v_a = [_float(a) for a in (s, H, W_a, v_a)]
    d = H.shape[-1]                       # hidden size
    W_s, W_h = W_a[:, :d], W_a[:, d:]     # W_a = [W_s | W_h]
    s_proj = np.dot(s, W_s.T)[..., np.newaxis, :]
    h_proj = np.dot(H, W_h.T)
    return np.dot(np.tanh(s_proj + h_proj), v_a)


def attention_context(scores, H, mask=None):
    scores, H = _float(scores), _float(H)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / np.sum(weights, axis=-1, keepdims=True)
    context = np.matmul(weights[..., np.newaxis, :], H)[..., 0, :]
    return context, weights
