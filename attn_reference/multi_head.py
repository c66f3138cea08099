"""Multi-head attention: several scaled dot-product attentions side by side."""

from __future__ import annotations

import numpy as np

from attn_reference._validate import as_float_array
from attn_reference.contract import Distribution, Output, graded
from attn_reference.heads import merge_heads, split_heads
from attn_reference.scaled_attention import scaled_dot_product_attention
from attn_reference.softmax import softmax


def _head_mask(mask):
    """Insert a head axis so one (..., n_q, n_kv) mask applies to every head."""
    if mask is None:
        return None
    mask = np.asarray(mask)
    if mask.ndim < 2:
        mask = mask.reshape((1,) * (2 - mask.ndim) + mask.shape)  # () or (n_kv,) -> (1, 1) or (1, n_kv)
    return mask[..., None, :, :]  # (..., 1, n_q, n_kv)


def _projection(W, name: str, d_model: int) -> np.ndarray:
    W = as_float_array(W, name)
    if W.shape != (d_model, d_model):
        raise ValueError(f"{name} must be ({d_model}, {d_model}) for d_model={d_model}, got {W.shape}")
    return W


@graded(
    Output("Y", axes=("n_q", "d_model")),
    Output("A", axes=("num_heads", "n_q", "n_kv")),
    distribution=Distribution(1, -1),
    calls=("split_heads", "merge_heads", "softmax"),
    core_ndim={"X_q": 2, "X_kv": 2, "mask": 2},
)
def multi_head_attention(
    X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None,
    *, split_heads=split_heads, merge_heads=merge_heads, softmax=softmax,
) -> tuple[np.ndarray, np.ndarray]:
    """Project, split into heads, attend per head, merge, project out.

    ``Y = merge(attention(split(X_q W_q), split(X_kv W_k), split(X_kv W_v))) W_o``,
    each head scaling its scores by ``sqrt(d_head)`` with ``d_head = d_model / num_heads``.

    Parameters
    ----------
    X_q : array_like, shape (..., n_q, d_model)
        Sequence the queries come from.
    X_kv : array_like, shape (..., n_kv, d_model)
        Sequence the keys and values come from (``X_q`` itself for self-attention).
    W_q, W_k, W_v, W_o : array_like, shape (d_model, d_model)
        Projections, applied as ``X @ W``.
    num_heads : int
        Must divide ``d_model``.
    mask : array_like of bool or 0/1, broadcastable to (..., n_q, n_kv), optional
        Applied to every head.

    Other Parameters
    ----------------
    split_heads, merge_heads, softmax : callable, default the reference's
        The pieces multi-head attention is built from; the grader passes a
        student's own to carry an error in them forward.

    Returns
    -------
    Y : numpy.ndarray, shape (..., n_q, d_model)
    A : numpy.ndarray, shape (..., num_heads, n_q, n_kv)
        Each head's attention weights.

    Raises
    ------
    ValueError
        When a weight is not (d_model, d_model) or ``num_heads`` does not divide d_model.
    """
    X_q = as_float_array(X_q, "X_q", min_ndim=2)
    X_kv = as_float_array(X_kv, "X_kv", min_ndim=2)
    d_model = X_q.shape[-1]
    if X_kv.shape[-1] != d_model:
        raise ValueError(f"X_q {X_q.shape} and X_kv {X_kv.shape} must share d_model")
    W_q, W_k, W_v, W_o = (
        _projection(W, name, d_model)
        for W, name in ((W_q, "W_q"), (W_k, "W_k"), (W_v, "W_v"), (W_o, "W_o"))
    )
    Q = split_heads(X_q @ W_q, num_heads)  # (..., h, n_q, d_head)
    K = split_heads(X_kv @ W_k, num_heads)  # (..., h, n_kv, d_head)
    V = split_heads(X_kv @ W_v, num_heads)  # (..., h, n_kv, d_head)
    Z, A = scaled_dot_product_attention(Q, K, V, _head_mask(mask), softmax=softmax)  # (..., h, n_q, d_head)
    return merge_heads(Z) @ W_o, A  # (..., n_q, d_model), (..., h, n_q, n_kv)
