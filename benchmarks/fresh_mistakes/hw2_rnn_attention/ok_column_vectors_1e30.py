import numpy as np


def _float(x):
    x = np.asarray(x)
    return x if x.dtype == np.float32 else np.asarray(x, dtype=np.float64)


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = (_float(a) for a in (s, H, W_a, U_a, v_a))
    # keep everything as column vectors, like in the paper
    Ws = W_a @ s[..., :, None]  # (..., d_a, 1)
    Uh = U_a @ np.swapaxes(H, -1, -2)  # (..., d_a, T)
    return (v_a @ np.tanh(Ws + Uh))  # (d_a,) @ (..., d_a, T) -> (..., T)


def dot_score(s, H):
    return np.einsum("...td,...d->...t", _float(H), _float(s))


def general_score(s, H, W_a):
    s, H, W_a = _float(s), _float(H), _float(W_a)
    # h_j^T W_a^T s is the same number as s^T W_a h_j
    return (H @ W_a.T @ s[..., :, None])[..., 0]


def concat_score(s, H, W_a, v_a):
    s, H, W_a, v_a = (_float(a) for a in (s, H, W_a, v_a))
    d_s = s.shape[-1]
    a = np.tensordot(s, W_a[:, :d_s], axes=([-1], [1]))  # (..., d_a)
    b = np.tensordot(H, W_a[:, d_s:], axes=([-1], [1]))  # (..., T, d_a)
    return np.tensordot(np.tanh(a[..., None, :] + b), v_a, axes=1)


def attention_context(scores, H, mask=None):
    scores, H = _float(scores), _float(H)
    if mask is not None:
        scores = np.where(np.asarray(mask) != 0, scores, -1e30)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    alpha = e / e.sum(axis=-1, keepdims=True)
    c = np.matmul(alpha[..., None, :], H).squeeze(-2)
    return c, alpha
