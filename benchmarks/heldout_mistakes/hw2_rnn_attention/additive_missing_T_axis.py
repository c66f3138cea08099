import numpy as np


def to_float(x):
    x = np.asarray(x)
    if x.dtype == np.float32:
        return x
    return x.astype(np.float64)


def additive_score(s, H, W_a, U_a, v_a):
    s = to_float(s)
    H = to_float(H)
    W_a = to_float(W_a)
    U_a = to_float(U_a)
    v_a = to_float(v_a)
    Ws = s @ W_a.T              # (d_a,)
    Uh = H @ U_a.T              # (T, d_a)
    e = np.tanh(Ws + Uh) @ v_a  # (T,)
    return e


def dot_score(s, H):
    s = to_float(s)
    H = to_float(H)
    return np.einsum("...d,...td->...t", s, H)


def general_score(s, H, W_a):
    s = to_float(s)
    H = to_float(H)
    W_a = to_float(W_a)
    return dot_score(s @ W_a, H)


def concat_score(s, H, W_a, v_a):
    s = to_float(s)
    W_a = to_float(W_a)
    d_s = s.shape[-1]
    U = W_a[:, d_s:]
    W = W_a[:, :d_s]
    Ws = (s @ W.T)[..., None, :]
    return np.tanh(Ws + to_float(H) @ U.T) @ to_float(v_a)


def attention_context(scores, H, mask=None):
    scores = to_float(scores)
    H = to_float(H)
    if mask is not None:
        mask = np.asarray(mask).astype(bool)
        scores = np.where(mask, scores, -np.inf)
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    w = np.exp(scores)
    alpha = w / np.sum(w, axis=-1, keepdims=True)
    context = (alpha[..., None, :] @ H)[..., 0, :]
    return context, alpha
