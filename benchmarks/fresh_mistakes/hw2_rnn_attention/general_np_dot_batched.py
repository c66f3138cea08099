"""HW2: RNN attention scores and the context vector."""
import numpy as np


def _to_float(a):
    a = np.asarray(a)
    if a.dtype != np.float32:
        a = a.astype(np.float64)
    return a


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = (_to_float(a) for a in (s, H, W_a, U_a, v_a))
    proj_s = np.tensordot(s, W_a, axes=([-1], [1]))  # (..., d_a)
    proj_h = np.tensordot(H, U_a, axes=([-1], [1]))  # (..., T, d_a)
    hidden = np.tanh(np.expand_dims(proj_s, -2) + proj_h)
    return np.tensordot(hidden, v_a, axes=([-1], [0]))  # (..., T)


def dot_score(s, H):
    s, H = _to_float(s), _to_float(H)
    return np.matmul(H, s[..., np.newaxis])[..., 0]


def general_score(s, H, W_a):
    s, H, W_a = _to_float(s), _to_float(H), _to_float(W_a)
    return np.dot(H, np.dot(s, W_a))  # h_j . (s^T W_a) for every j


def concat_score(s, H, W_a, v_a):
    s, H, W_a, v_a = (_to_float(a) for a in (s, H, W_a, v_a))
    d_s = s.shape[-1]
    # W_a [s; h] = W_a[:, :d_s] s + W_a[:, d_s:] h  -> the additive score
    return additive_score(s, H, W_a[:, :d_s], W_a[:, d_s:], v_a)


def attention_context(scores, H, mask=None):
    scores, H = _to_float(scores), _to_float(H)
    if mask is not None:
        scores = np.where(np.asarray(mask) == 0, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    alpha = np.exp(scores)
    alpha /= alpha.sum(axis=-1, keepdims=True)
    c = np.matmul(alpha[..., np.newaxis, :], H)[..., 0, :]
    return c, alpha
