"""HW1: scaled dot-product attention. All functions vectorised with numpy."""
import numpy as np
import math


def softmax(x, axis: int = -1) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(float)
    shifted = x - x.max(axis=axis, keepdims=True)  # stability trick
    e = np.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)


def causal_mask(n: int) -> np.ndarray:
    # lower triangle including the diagonal
    return np.tril(np.ones((n, n), dtype=bool))


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a) for a in (Q, K, V))
    Q, K, V = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (Q, K, V))
    d_k = Q.shape[-1]
    n_q, n_k = Q.shape[0], K.shape[0]
    A = np.zeros((n_q, n_k), dtype=np.result_type(Q, K))
    for i in range(n_q):
        s = K @ Q[i] / math.sqrt(d_k)  # scores of query i against every key
        if mask is not None:
            s = np.where(np.asarray(mask)[i] != 0, s, -np.inf)
        s = s - s.max()
        A[i] = np.exp(s) / np.exp(s).sum()
    return A @ V, A


def dot_product_variance(d_k: int, n_samples: int, rng: np.random.Generator) -> tuple[float, float]:
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    raw = (q * k).sum(axis=1)
    scaled = raw / math.sqrt(d_k)
    return float(np.var(raw)), float(np.var(scaled))
