import numpy as np


def _float(*arrays):
    out = []
    for a in arrays:
        a = np.asarray(a)
        out.append(a if a.dtype == np.float32 else a.astype(np.float64))
    return out


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = _float(s, H, W_a, U_a, v_a)
    query = np.expand_dims(s @ W_a.T, -2)  # (..., 1, d_a)
    keys = H @ U_a.T                       # (..., T, d_a)
    return np.tanh((query + keys) @ v_a)


def dot_score(s, H):
    s, H = _float(s, H)
    return np.matmul(H, s[..., np.newaxis]).squeeze(-1)


def general_score(s, H, W_a):
    s, H, W_a = _float(s, H, W_a)
    return dot_score(np.matmul(s, W_a), H)


def concat_score(s, H, W_a, v_a):
    # W_a [s; h_j] = W_a[:, :d_s] s + W_a[:, d_s:] h_j, i.e. the additive score
    s, W_a = _float(s, W_a)
    d_s = s.shape[-1]
    return additive_score(s, H, W_a[:, :d_s], W_a[:, d_s:], v_a)


def attention_context(scores, H, mask=None):
    scores, H = _float(scores, H)
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    alpha = np.exp(scores)
    alpha = alpha / np.sum(alpha, axis=-1, keepdims=True)
    c = np.matmul(alpha[..., np.newaxis, :], H).squeeze(-2)
    return c, alpha
