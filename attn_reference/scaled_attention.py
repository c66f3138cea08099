"""Scaled dot-product attention: ``softmax(Q K^T / sqrt(d_k)) V``."""

from __future__ import annotations

import math

import numpy as np

from attn_reference._validate import as_float_array, batch_shape
from attn_reference.contract import Distribution, Output, graded
from attn_reference.masks import mask_scores
from attn_reference.softmax import softmax


@graded(
    Output("Z", axes=("L_q", "d_v")),
    Output("A", axes=("L_q", "L_k")),
    distribution=Distribution(1, -1),
    calls=("softmax",),
    core_ndim={"Q": 2, "K": 2, "V": 2, "mask": 2},
)
def scaled_dot_product_attention(Q, K, V, mask=None, *, softmax=softmax) -> tuple[np.ndarray, np.ndarray]:
    """Attend from each query to every (allowed) key.

    Four steps: scores ``Q K^T``, scaling by ``1/sqrt(d_k)``, softmax over keys,
    and the weighted sum of values.

    Parameters
    ----------
    Q : array_like, shape (..., L_q, d_k)
    K : array_like, shape (..., L_k, d_k)
    V : array_like, shape (..., L_k, d_v)
    mask : array_like of bool or 0/1, broadcastable to (..., L_q, L_k), optional
        True/1 where the query may attend to the key. A query row with no allowed
        key is undefined (its weights are NaN).

    Other Parameters
    ----------------
    softmax : callable, default :func:`attn_reference.softmax`
        The softmax applied to the scores; the grader passes a student's own to
        carry an error in it forward.

    Returns
    -------
    Z : numpy.ndarray, shape (..., L_q, d_v)
        The context vectors ``A V``.
    A : numpy.ndarray, shape (..., L_q, L_k)
        The attention weights; each row sums to 1.

    Raises
    ------
    ValueError
        When the shapes do not fit together (the message names them).
    """
    Q = as_float_array(Q, "Q", min_ndim=2)
    K = as_float_array(K, "K", min_ndim=2)
    V = as_float_array(V, "V", min_ndim=2)
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q {Q.shape} and K {K.shape} must share the last dimension d_k")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K {K.shape} and V {V.shape} must have the same number of keys L_k")
    batch_shape(("Q", Q.shape), ("K", K.shape), ("V", V.shape), core_ndim={"Q": 2, "K": 2, "V": 2})
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_k)  # (..., L_q, L_k)
    weights = softmax(mask_scores(scores, mask), axis=-1)  # (..., L_q, L_k)
    return weights @ V, weights  # (..., L_q, d_v), (..., L_q, L_k)
