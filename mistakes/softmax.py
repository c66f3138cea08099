"""Wrong versions of :func:`attn_reference.softmax`, each with the reference's signature."""

from __future__ import annotations

import numpy as np

from attn_reference._validate import as_float_array
from autograder.diagnose.phrases import AXIS_ARGUMENT, LAST_AXIS, axis
from autograder.mutants import Mutant

#: The axis a student hard-codes when ignoring the ``axis`` argument.
HARD_CODED_AXIS = -1


def _scores(x) -> np.ndarray:
    return as_float_array(x, "x", min_ndim=1)


def _shifted_softmax(scores: np.ndarray, axis: int) -> np.ndarray:
    """The correct softmax along ``axis``, which the wrong-axis mutants call with another axis."""
    exps = np.exp(scores - np.max(scores, axis=axis, keepdims=True))
    return exps / np.sum(exps, axis=axis, keepdims=True)


def no_max_shift(x, axis: int = -1) -> np.ndarray:
    """Exponentiate the raw scores, which overflows to inf (and then NaN) for scores near 1e3."""
    exps = np.exp(_scores(x))
    return exps / np.sum(exps, axis=axis, keepdims=True)


def wrong_axis_first(x, axis: int = -1) -> np.ndarray:
    """Normalise along axis 0 whatever ``axis`` asks for."""
    return _shifted_softmax(_scores(x), axis=0)


def wrong_axis_ignored(x, axis: int = -1) -> np.ndarray:
    """Ignore the ``axis`` argument and always normalise along the last axis."""
    return _shifted_softmax(_scores(x), axis=HARD_CODED_AXIS)


def not_normalized(x, axis: int = -1) -> np.ndarray:
    """Return ``exp(x - max)`` without dividing by the sum."""
    scores = _scores(x)
    return np.exp(scores - np.max(scores, axis=axis, keepdims=True))


def no_keepdims(x, axis: int = -1) -> np.ndarray:
    """Reduce without ``keepdims=True``, so max and sum broadcast against the wrong axis."""
    scores = _scores(x)
    exps = np.exp(scores - np.max(scores, axis=axis))  # (..., n) - (...,): aligned on the last axis
    return exps / np.sum(exps, axis=axis)


def global_normalization(x, axis: int = -1) -> np.ndarray:
    """Shift by the global maximum and divide by the sum over every entry."""
    scores = _scores(x)
    exps = np.exp(scores - np.max(scores))
    return exps / np.sum(exps)


#: The wrong versions above, each naming its bug (an id of diagnoses.py) in a sub-variant of its own.
MUTANTS: tuple[Mutant, ...] = (
    Mutant("softmax.no_max_shift", "softmax", no_max_shift),
    Mutant("softmax.wrong_axis", "softmax", wrong_axis_first, "axis_0",
           (("actual", axis(0)), ("expected", AXIS_ARGUMENT))),
    Mutant("softmax.wrong_axis", "softmax", wrong_axis_ignored, "ignores_axis",
           (("actual", LAST_AXIS), ("expected", AXIS_ARGUMENT))),
    Mutant("softmax.not_normalized", "softmax", not_normalized),
    Mutant("softmax.no_keepdims", "softmax", no_keepdims),
    Mutant("softmax.global_normalization", "softmax", global_normalization),
)
