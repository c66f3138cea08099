"""Helpers for the public checks: compare a result with a known answer and say what differs.

Uses numpy only: this file is also copied into each student release.
"""

from __future__ import annotations

import numpy as np

#: Tolerances of the public checks (the hidden tests use course.yml's).
RTOL = 1e-5
ATOL = 1e-8


class CheckFailed(AssertionError):
    """A public check failed; the message says what to look at."""


def _describe(value) -> str:
    return f"{type(value).__name__} with dtype {value.dtype}" if isinstance(value, np.ndarray) else type(value).__name__


def first_mismatch(actual: np.ndarray, expected: np.ndarray, rtol: float = RTOL, atol: float = ATOL) -> str:
    """Where ``actual`` first differs from ``expected``, e.g. ``at index (0, 2): expected 0.4519, got 0.3``."""
    bad = ~np.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    return f"at index {index}: expected {expected[index]:.4g}, got {actual[index]:.4g}"


def expect_array(actual, expected, name: str, rtol: float = RTOL, atol: float = ATOL) -> None:
    """Check type, shape, finiteness and values of ``actual`` against ``expected``.

    Raises
    ------
    CheckFailed
        Naming the first problem found.
    """
    expected = np.asarray(expected)
    if not isinstance(actual, np.ndarray) or actual.dtype.kind not in "biuf":
        raise CheckFailed(f"{name}: expected a real numpy array, got {_describe(actual)}")
    if actual.shape != expected.shape:
        raise CheckFailed(f"{name}: expected shape {expected.shape}, got {actual.shape}")
    if expected.dtype == np.bool_ and actual.dtype != np.bool_:
        raise CheckFailed(f"{name}: expected a boolean array, got dtype {actual.dtype}")
    if expected.dtype.kind == "f" and not np.all(np.isfinite(actual)):
        raise CheckFailed(f"{name}: holds NaN or inf {first_mismatch(actual, expected, rtol, atol)}")
    if not np.allclose(actual, expected, rtol=rtol, atol=atol):
        raise CheckFailed(f"{name}: wrong values {first_mismatch(actual, expected, rtol, atol)}")


def expect_shape(actual, shape: tuple, name: str) -> None:
    """Check that ``actual`` is a real numpy array of the given shape.

    Raises
    ------
    CheckFailed
        Saying which shape was expected and which came back.
    """
    if not isinstance(actual, np.ndarray) or actual.dtype.kind not in "biuf":
        raise CheckFailed(f"{name}: expected a real numpy array, got {_describe(actual)}")
    if actual.shape != tuple(shape):
        raise CheckFailed(f"{name}: expected shape {tuple(shape)}, got {actual.shape}")


def expect_rows_sum_to_one(weights, name: str, axis: int = -1) -> None:
    """Check that attention weights are a distribution along ``axis``.

    Raises
    ------
    CheckFailed
        Showing the first row sums when they are not 1.
    """
    sums = np.sum(np.asarray(weights, dtype=float), axis=axis)
    if not np.allclose(sums, 1.0, rtol=RTOL, atol=1e-6):
        shown = np.array2string(sums.ravel()[:4], precision=4)
        raise CheckFailed(f"{name}: rows should sum to 1 along axis {axis}; first row sums are {shown}")


def expect_tuple(result, length: int, name: str) -> tuple:
    """Check that ``result`` is a tuple of ``length`` items (e.g. ``(Z, A)``).

    Raises
    ------
    CheckFailed
        When it is not.
    """
    if not isinstance(result, tuple) or len(result) != length:
        got = f"a tuple of {len(result)}" if isinstance(result, tuple) else _describe(result)
        raise CheckFailed(f"{name}: expected a tuple of {length} arrays, got {got}")
    return result
