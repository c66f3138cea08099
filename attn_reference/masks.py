"""Attention masks. Convention: True (or 1) means *this query may attend to this key*."""

from __future__ import annotations

import numpy as np

from attn_reference._validate import as_bool_mask, check_broadcastable
from attn_reference.contract import Output, graded


@graded(Output("the mask", axes=("query", "key")))
def causal_mask(n: int) -> np.ndarray:
    """Lower-triangular mask letting each position see itself and earlier positions.

    Parameters
    ----------
    n : int
        Sequence length, at least 1. A bool is not a length: ``causal_mask(True)`` is
        outside the contract, so no test passes one.

    Returns
    -------
    numpy.ndarray of bool, shape (n, n)
        ``mask[i, j]`` is True exactly when ``j <= i``.

    Raises
    ------
    ValueError
        When ``n`` is not a positive integer (a bool included); like all input
        validation, this is not graded.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    positions = np.arange(n)
    return positions[None, :] <= positions[:, None]  # (n, n): key index <= query index


def mask_scores(scores: np.ndarray, mask) -> np.ndarray:
    """Set the scores of disallowed positions to ``-inf`` so softmax gives them weight 0.

    Parameters
    ----------
    scores : numpy.ndarray, shape (..., L_q, L_k)
    mask : array_like of bool or 0/1, broadcastable to ``scores.shape``, or None

    Raises
    ------
    ValueError
        When the mask does not broadcast to the scores or holds values other than 0/1.
    """
    if mask is None:
        return scores
    allowed = as_bool_mask(mask)
    check_broadcastable(scores.shape, allowed.shape, "mask")
    return np.where(allowed, scores, -np.inf).astype(scores.dtype, copy=False)
