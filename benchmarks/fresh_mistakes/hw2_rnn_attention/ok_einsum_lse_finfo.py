"""hw2 -- written without a single matmul."""
import numpy as np


def _f(a):
    a = np.asarray(a)
    return a if a.dtype == np.float32 else a.astype(np.float64)


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = (_f(a) for a in (s, H, W_a, U_a, v_a))
    query = np.einsum("...d,ad->...a", s, W_a)
    keys = np.einsum("...td,ad->...ta", H, U_a)
    return np.einsum("...ta,a->...t", np.tanh(query[..., np.newaxis, :] + keys), v_a)


def dot_score(s, H):
    s, H = _f(s), _f(H)
    return (s[..., np.newaxis, :] * H).sum(axis=-1)  # (..., 1, d) * (..., T, d) -> (..., T)


def general_score(s, H, W_a):
    s, H, W_a = _f(s), _f(H), _f(W_a)
    projected = np.einsum("...i,ij->...j", s, W_a)  # s^T W_a
    return (projected[..., np.newaxis, :] * H).sum(axis=-1)


def concat_score(s, H, W_a, v_a):
    s, H, W_a, v_a = (_f(a) for a in (s, H, W_a, v_a))
    d_s, T = s.shape[-1], H.shape[-2]
    batch = np.broadcast_shapes(s.shape[:-1], H.shape[:-2])
    s_rep = np.broadcast_to(s[..., np.newaxis, :], batch + (T, d_s))
    H_b = np.broadcast_to(H, batch + H.shape[-2:])
    sh = np.concatenate([s_rep, H_b], axis=-1)  # [s; h_j] for every j
    pre = np.einsum("...tc,ac->...ta", sh, W_a)
    return np.einsum("...ta,a->...t", np.tanh(pre), v_a)


def attention_context(scores, H, mask=None):
    scores, H = _f(scores), _f(H)
    if mask is not None:
        # most negative finite value instead of -inf: still exactly 0 after exp
        scores = np.where(np.asarray(mask).astype(bool), scores, np.finfo(scores.dtype).min)
    m = scores.max(axis=-1, keepdims=True)
    lse = m + np.log(np.exp(scores - m).sum(axis=-1, keepdims=True))
    alpha = np.exp(scores - lse)
    c = (alpha[..., :, np.newaxis] * H).sum(axis=-2)
    return c, alpha
