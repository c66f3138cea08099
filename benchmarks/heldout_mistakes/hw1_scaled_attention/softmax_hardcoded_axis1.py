import math
import numpy as np


def softmax(x, axis: int = -1) -> np.ndarray:
    x = np.asarray(x)
    x = x.astype(np.float32) if x.dtype == np.float32 else x.astype(np.float64)
    # normalise over dim=1 (the class / key dimension)
    x_max = np.max(x, axis=1, keepdims=True)
    exps = np.exp(x - x_max)
    return exps / np.sum(exps, axis=1, keepdims=True)


def causal_mask(n: int) -> np.ndarray:
    return np.tri(n, dtype=bool)


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    K = np.asarray(K)
    V = np.asarray(V)
    Q, K, V = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (Q, K, V))
    d_k = Q.shape[-1]

    scores = np.matmul(Q, np.swapaxes(K, -1, -2))
    scores = scores / math.sqrt(d_k)
    if mask is not None:
        mask = np.asarray(mask).astype(bool)
        scores = np.where(mask, scores, -np.inf)
    attn = softmax(scores, axis=-1)
    out = np.matmul(attn, V)
    return out, attn


def dot_product_variance(d_k: int, n_samples: int, rng: np.random.Generator):
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    qk = np.einsum("nd,nd->n", q, k)
    var_raw = np.var(qk)
    var_scaled = np.var(qk / math.sqrt(d_k))
    return float(var_raw), float(var_scaled)
