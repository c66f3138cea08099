"""Context vector of RNN attention: ``c = sum_j alpha_j h_j``."""

from __future__ import annotations

import numpy as np

from attn_reference._validate import as_float_array, check_broadcastable
from attn_reference.masks import mask_scores
from attn_reference.softmax import softmax


def attention_context(scores, H, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Normalise alignment scores and average the encoder states with them.

    Parameters
    ----------
    scores : array_like, shape (..., T)
        Alignment scores, e.g. from :func:`attn_reference.additive_score`.
    H : array_like, shape (..., T, d_h)
        Encoder states.
    mask : array_like of bool or 0/1, broadcastable to (..., T), optional
        False/0 at padded source positions, which then get weight 0.

    Returns
    -------
    c : numpy.ndarray, shape (..., d_h)
        The context vector.
    alpha : numpy.ndarray, shape (..., T)
        The attention weights, summing to 1.

    Raises
    ------
    ValueError
        When ``scores`` and ``H`` disagree on T or their batch dimensions.
    """
    scores = as_float_array(scores, "scores", min_ndim=1)
    H = as_float_array(H, "H", min_ndim=2)
    if scores.shape[-1] != H.shape[-2]:
        raise ValueError(f"scores {scores.shape} and H {H.shape} must agree on T")
    check_broadcastable(H.shape[:-1], scores.shape, "scores")
    alpha = softmax(mask_scores(scores, mask), axis=-1)  # (..., T)
    context = (alpha[..., None, :] @ H)[..., 0, :]  # (..., 1, d_h) -> (..., d_h)
    return context, alpha
