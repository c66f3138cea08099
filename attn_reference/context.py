"""Context vector of RNN attention: ``c = sum_j alpha_j h_j``."""

from __future__ import annotations

import numpy as np

from attn_reference._validate import as_float_array, batch_shape
from attn_reference.contract import Distribution, Output, graded
from attn_reference.masks import mask_scores
from attn_reference.softmax import softmax


@graded(
    Output("c", axes=("d_h",)),
    Output("alpha", axes=("T",)),
    distribution=Distribution(1, -1),
    calls=("softmax",),
    core_ndim={"scores": 1, "H": 2, "mask": 1},
)
def attention_context(scores, H, mask=None, *, softmax=softmax) -> tuple[np.ndarray, np.ndarray]:
    """Normalise alignment scores and average the encoder states with them.

    Parameters
    ----------
    scores : array_like, shape (..., T)
        Alignment scores, e.g. from :func:`attn_reference.additive_score`.
    H : array_like, shape (..., T, d_h)
        Encoder states. The batch dimensions of ``scores`` and ``H`` broadcast
        against each other: scores of shape ``(T_y, T_x)`` for ``T_y`` decoder steps
        with ``H`` of shape ``(T_x, d_h)`` give ``T_y`` context vectors.
    mask : array_like of bool or 0/1, broadcastable to (..., T), optional
        False/0 at padded source positions, which then get weight 0.

    Other Parameters
    ----------------
    softmax : callable, default :func:`attn_reference.softmax`
        The softmax applied to the scores; the grader passes a student's own to
        carry an error in it forward.

    Returns
    -------
    c : numpy.ndarray, shape (..., d_h)
        The context vector; ``...`` is the broadcast of both batch shapes.
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
    batch_shape(("scores", scores.shape), ("H", H.shape), core_ndim={"scores": 1, "H": 2})
    alpha = softmax(mask_scores(scores, mask), axis=-1)  # (..., T)
    context = (alpha[..., None, :] @ H)[..., 0, :]  # (..., 1, d_h) -> (..., d_h)
    return context, alpha
