"""Splitting the model dimension into attention heads, and merging them back."""

from __future__ import annotations

import numpy as np

from attn_reference._validate import as_float_array
from attn_reference.contract import Output, graded


@graded(Output("the result", axes=("num_heads", "n", "d_head")), core_ndim={"X": 2})
def split_heads(X, num_heads: int) -> np.ndarray:
    """Give each head its own slice of the model dimension.

    Head ``h`` gets features ``h * d_head`` to ``(h + 1) * d_head - 1``.

    Parameters
    ----------
    X : array_like, shape (..., n, d_model)
    num_heads : int
        Must divide ``d_model``.

    Returns
    -------
    numpy.ndarray, shape (..., num_heads, n, d_model // num_heads)

    Raises
    ------
    ValueError
        When ``num_heads`` is not positive or does not divide ``d_model``.
    """
    X = as_float_array(X, "X", min_ndim=2)
    *batch, n, d_model = X.shape
    if num_heads < 1 or d_model % num_heads:
        raise ValueError(f"num_heads={num_heads} does not divide d_model of X {X.shape}")
    per_head = X.reshape(*batch, n, num_heads, d_model // num_heads)  # (..., n, h, d_head)
    return np.swapaxes(per_head, -2, -3)  # (..., h, n, d_head)


@graded(Output("the result", axes=("n", "d_model")), core_ndim={"X": 3})
def merge_heads(X) -> np.ndarray:
    """Concatenate the heads' features again: the exact inverse of :func:`split_heads`.

    Parameters
    ----------
    X : array_like, shape (..., num_heads, n, d_head)

    Returns
    -------
    numpy.ndarray, shape (..., n, num_heads * d_head)

    Raises
    ------
    ValueError
        When ``X`` has fewer than 3 dimensions.
    """
    X = as_float_array(X, "X", min_ndim=3)
    *batch, num_heads, n, d_head = X.shape
    per_position = np.swapaxes(X, -2, -3)  # (..., n, h, d_head)
    return per_position.reshape(*batch, n, num_heads * d_head)  # (..., n, d_model)
