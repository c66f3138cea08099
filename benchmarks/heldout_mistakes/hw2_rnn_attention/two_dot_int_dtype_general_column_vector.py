import numpy as np


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = (np.asarray(a) for a in (s, H, W_a, U_a, v_a))
    s, H, W_a, U_a, v_a = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (s, H, W_a, U_a, v_a))
    hidden = np.tanh(np.einsum("...d,ad->...a", s, W_a)[..., None, :] + np.einsum("...td,ad->...ta", H, U_a))
    return np.einsum("...ta,a->...t", hidden, v_a)


def dot_score(s, H):
    s = np.asarray(s)
    H = np.asarray(H)
    return np.einsum("...d,...td->...t", s, H)


def general_score(s, H, W_a):
    s, H, W_a = (np.asarray(a) for a in (s, H, W_a))
    s, H, W_a = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (s, H, W_a))
    # s^T W_a as a column vector: (W_a^T s)
    return dot_score(W_a.T @ s, H)


def concat_score(s, H, W_a, v_a):
    s = np.asarray(s)
    W_a = np.asarray(W_a)
    d_s = s.shape[-1]
    return additive_score(s, H, W_a[:, :d_s], W_a[:, d_s:], v_a)


def attention_context(scores, H, mask=None):
    scores, H = np.asarray(scores), np.asarray(H)
    scores = scores if scores.dtype == np.float32 else scores.astype(np.float64)
    H = H if H.dtype == np.float32 else H.astype(np.float64)
    if mask is not None:
        scores = np.where(np.asarray(mask).astype(bool), scores, -np.inf)
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    alpha = e / np.sum(e, axis=-1, keepdims=True)
    return np.einsum("...t,...td->...d", alpha, H), alpha
