"""Numerically stable softmax."""

from __future__ import annotations

import numpy as np

from attn_reference._validate import as_float_array
from attn_reference.contract import Distribution, Output, graded


@graded(Output("the result"), distribution=Distribution(0, "axis"), core_ndim={"x": 1})
def softmax(x, axis: int = -1) -> np.ndarray:
    """Softmax along ``axis``, shifted by the maximum so it cannot overflow.

    ``softmax(x)_i = exp(x_i - max(x)) / sum_j exp(x_j - max(x))``.

    Parameters
    ----------
    x : array_like, shape (..., n)
        Scores. Entries of ``-inf`` get weight exactly 0 as long as their slice
        holds at least one finite entry.
    axis : int
        The axis to normalise over.

    Returns
    -------
    numpy.ndarray, same shape as ``x``
        Non-negative weights summing to 1 along ``axis``; float32 for float32 input,
        float64 otherwise. A slice that is entirely ``-inf`` is undefined (NaN).

    Raises
    ------
    ValueError
        When ``x`` is a scalar or ``axis`` is out of range.
    """
    scores = as_float_array(x, "x", min_ndim=1)
    if not -scores.ndim <= axis < scores.ndim:
        raise ValueError(f"axis {axis} is out of range for x of shape {scores.shape}")
    shift = np.max(scores, axis=axis, keepdims=True)
    with np.errstate(invalid="ignore"):
        exps = np.exp(scores - shift)
        return exps / np.sum(exps, axis=axis, keepdims=True)
