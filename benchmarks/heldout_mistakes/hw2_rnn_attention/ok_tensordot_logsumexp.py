import numpy as np


def _float(a):
    a = np.asarray(a)
    return a.astype(np.float32 if a.dtype == np.float32 else np.float64, copy=False)


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = (_float(a) for a in (s, H, W_a, U_a, v_a))
    ws = np.tensordot(s, W_a, axes=([-1], [1]))      # (..., d_a)
    uh = np.tensordot(H, U_a, axes=([-1], [1]))      # (..., T, d_a)
    return np.tensordot(np.tanh(ws[..., np.newaxis, :] + uh), v_a, axes=([-1], [0]))


def dot_score(s, H):
    s, H = _float(s), _float(H)
    return np.matmul(H, s[..., np.newaxis]).squeeze(-1)


def general_score(s, H, W_a):
    # s^T W_a h_j = s . (W_a h_j): move W_a onto the encoder side
    s, H, W_a = _float(s), _float(H), _float(W_a)
    return dot_score(s, H @ W_a.T)


def concat_score(s, H, W_a, v_a):
    s, W_a = _float(s), _float(W_a)
    d_s = s.shape[-1]
    return additive_score(s, H, W_a[:, :d_s], W_a[:, d_s:], v_a)


def attention_context(scores, H, mask=None):
    scores, H = _float(scores), _float(H)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    with np.errstate(invalid="ignore"):
        shifted = scores - np.max(scores, axis=-1, keepdims=True)
        log_z = np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
        alpha = np.exp(shifted - log_z)   # exp(e_j - logsumexp(e))
    c = np.sum(alpha[..., :, np.newaxis] * H, axis=-2)
    return c, alpha
