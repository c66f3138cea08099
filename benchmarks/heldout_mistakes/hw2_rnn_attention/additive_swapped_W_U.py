import numpy as np


def _cast(a):
    a = np.asarray(a)
    if a.dtype != np.float32:
        a = a.astype(np.float64)
    return a


def additive_score(s, H, W_a, U_a, v_a):
    s, H, W_a, U_a, v_a = map(_cast, (s, H, W_a, U_a, v_a))
    # W_a projects the encoder states (keys), U_a the decoder state (query)
    keys = np.einsum("ad,...td->...ta", W_a, H)
    query = np.einsum("ad,...d->...a", U_a, s)
    return np.einsum("...ta,a->...t", np.tanh(keys + query[..., None, :]), v_a)


def dot_score(s, H):
    s, H = map(_cast, (s, H))
    return np.einsum("...d,...td->...t", s, H)


def general_score(s, H, W_a):
    s, H, W_a = map(_cast, (s, H, W_a))
    return np.einsum("...i,ij,...tj->...t", s, W_a, H)


def concat_score(s, H, W_a, v_a):
    s, H, W_a, v_a = map(_cast, (s, H, W_a, v_a))
    d_s = s.shape[-1]
    q = np.einsum("ad,...d->...a", W_a[:, :d_s], s)
    k = np.einsum("ad,...td->...ta", W_a[:, d_s:], H)
    return np.einsum("...ta,a->...t", np.tanh(q[..., None, :] + k), v_a)


def attention_context(scores, H, mask=None):
    scores, H = map(_cast, (scores, H))
    if mask is not None:
        scores = np.where(np.asarray(mask) != 0, scores, -np.inf)
    z = scores - scores.max(axis=-1, keepdims=True)
    ez = np.exp(z)
    alpha = ez / ez.sum(axis=-1, keepdims=True)
    c = np.einsum("...t,...td->...d", alpha, H)
    return c, alpha
