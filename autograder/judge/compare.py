"""Compare a result with the reference's: the first difference, as data.

:func:`find_difference` checks, in order, the tuple structure, the kind of each part
(an array where an array is documented, a real or boolean dtype), its shape, its
finiteness and its values, and returns the first :class:`Difference` (or None). Turning
a difference into words is :mod:`autograder.judge.messages`' job; naming the bug behind
it is :mod:`autograder.diagnose`'s.

Positions where the reference is NaN are undefined (e.g. an attention row with every key
masked) and accept any value.
"""

from __future__ import annotations

import enum
import functools
import inspect
from dataclasses import dataclass
from typing import Callable

import numpy as np

import attn_reference
from attn_reference.contract import Contract, contract_of
from autograder.errors import GraderError
from autograder.judge.tolerance import Tolerance  # noqa: F401 - re-exported: callers import it from here
from autograder.inputs import fresh


@dataclass(frozen=True)
class Parts:
    """A returned value split into parts: one array, or one per tuple element."""

    is_tuple: bool
    arrays: tuple[np.ndarray, ...]


@dataclass(frozen=True)
class Raised:
    """The outcome of a call that raised."""

    error: BaseException


def split(value) -> Parts:
    """``value`` as :class:`Parts` (a tuple becomes one array per element).

    Raises
    ------
    ValueError
        When a part cannot be turned into an array (e.g. a ragged nested list).
    """
    if isinstance(value, tuple):
        return Parts(True, tuple(np.asarray(part) for part in value))
    return Parts(False, (np.asarray(value),))


def reference_function(function: str) -> Callable:
    """``attn_reference.<function>``.

    Raises
    ------
    GraderError
        When ``function`` is not a graded reference function.
    """
    implementation = getattr(attn_reference, function, None)
    if function not in attn_reference.__all__ or implementation is None:
        raise GraderError(f"attn_reference has no graded function {function!r}")
    return implementation


@functools.lru_cache(maxsize=None)
def reference_signature(function: str) -> inspect.Signature:
    """The signature of ``attn_reference.<function>`` (computed once: diagnoses bind many calls to it).

    Raises
    ------
    GraderError
        When ``function`` is not a graded reference function.
    """
    return inspect.signature(reference_function(function))


def contract(function: str) -> Contract:
    """The documented contract of the graded ``function``.

    Raises
    ------
    GraderError
        When the reference function carries no contract.
    """
    try:
        return contract_of(reference_function(function))
    except LookupError as error:
        raise GraderError(str(error)) from None


def run(implementation: Callable, args: tuple, kwargs: dict) -> Parts | Raised:
    """Run a trusted implementation (the reference, a mutant) on fresh copies of the inputs."""
    try:
        with np.errstate(all="ignore"):
            return split(implementation(*fresh(tuple(args)), **fresh(dict(kwargs))))
    except Exception as error:  # a mutant (or the reference) rejecting the inputs is an outcome
        return Raised(error)


def reference_output(function: str, args: tuple, kwargs: dict):
    """What ``attn_reference.<function>`` returns on fresh copies of the inputs.

    Raises
    ------
    GraderError
        When ``function`` is not a graded reference function.
    """
    return reference_function(function)(*fresh(tuple(args)), **fresh(dict(kwargs)))


def numeric(array: np.ndarray) -> bool:
    """Whether an array holds bool, integer or real values."""
    return array.dtype.kind in "biuf"


def close(actual: np.ndarray, expected: np.ndarray, tol: Tolerance, equal_nan: bool = False) -> np.ndarray:
    """``np.isclose(actual, expected, tol.rtol, tol.atol, equal_nan)`` for float64 arrays.

    The same rule (``|actual - expected| <= atol + rtol |expected|`` where both are finite,
    equal infinities close, NaN close to NaN only with ``equal_nan``), without the general
    function's argument handling: grading compares thousands of small arrays.
    """
    with np.errstate(all="ignore"):
        within = np.abs(actual - expected) <= tol.atol + tol.rtol * np.abs(expected)
        result = (within & np.isfinite(actual) & np.isfinite(expected)) | (actual == expected)
    if equal_nan:
        result |= np.isnan(actual) & np.isnan(expected)
    return result


def mismatched(expected: np.ndarray, actual: np.ndarray, tol: Tolerance) -> np.ndarray:
    """Boolean array: where ``actual`` is not close to a defined (non-NaN) ``expected``."""
    expected = expected.astype(np.float64)
    actual = actual.astype(np.float64)
    return ~np.isnan(expected) & ~close(actual, expected, tol)


def agrees(expected: Parts, actual: Parts, tol: Tolerance) -> bool:
    """Same structure, shapes and (where ``expected`` is defined) close values."""
    if expected.is_tuple != actual.is_tuple or len(expected.arrays) != len(actual.arrays):
        return False
    return all(
        e.shape == a.shape and numeric(a) and not mismatched(e, a, tol).any()
        for e, a in zip(expected.arrays, actual.arrays)
    )


def same_values(one: Parts, other: Parts, tol: Tolerance) -> bool:
    """Same structure and shapes, and close values with NaN matching NaN (two wrong results alike)."""
    if one.is_tuple != other.is_tuple or len(one.arrays) != len(other.arrays):
        return False
    return all(
        a.shape == b.shape and numeric(a) and numeric(b)
        and close(a.astype(np.float64), b.astype(np.float64), tol, equal_nan=True).all()
        for a, b in zip(one.arrays, other.arrays)
    )


class DifferenceKind(enum.Enum):
    """What :func:`find_difference` found wrong, in the order it checks."""

    SINGLE_NOT_TUPLE = "single value where a tuple is documented"
    ARITY = "tuple of the wrong length"
    TUPLE_NOT_SINGLE = "tuple where a single value is documented"
    NOT_AN_ARRAY = "cannot be turned into an array"
    NOT_BOOLEAN = "not a boolean array"
    NOT_REAL = "not a real floating-point array"
    SHAPE = "wrong shape"
    NON_FINITE = "inf or nan where finite values are expected"
    VALUES = "values outside the tolerance"


@dataclass(frozen=True)
class Difference:
    """The first thing found wrong with a result.

    Attributes
    ----------
    kind : DifferenceKind
    part : int
        Index of the part it concerns (0 for single values and structural kinds).
    expected, actual : numpy.ndarray or None
        The part's reference and student values, for the message.
    got : str
        For structural kinds, what came back (e.g. ``"ndarray"``, ``"a tuple of 3"``).
    """

    kind: DifferenceKind
    part: int = 0
    expected: np.ndarray | None = None
    actual: np.ndarray | None = None
    got: str = ""


def _structure_difference(reference: Parts, actual) -> Difference | None:
    if reference.is_tuple and not isinstance(actual, tuple):
        return Difference(DifferenceKind.SINGLE_NOT_TUPLE, got=type(actual).__name__)
    if reference.is_tuple and len(actual) != len(reference.arrays):
        return Difference(DifferenceKind.ARITY, got=str(len(actual)))
    if not reference.is_tuple and isinstance(actual, tuple):
        return Difference(DifferenceKind.TUPLE_NOT_SINGLE, got=str(len(actual)))
    return None


def part_difference(index: int, expected: np.ndarray, actual, tol: Tolerance) -> Difference | None:
    """The first difference of one part (dtype kind, shape, finiteness, values), or None."""
    try:
        actual = np.asarray(actual)
    except Exception:  # e.g. a ragged nested list
        return Difference(DifferenceKind.NOT_AN_ARRAY, index, expected)
    if expected.dtype.kind == "b" and actual.dtype.kind != "b":
        return Difference(DifferenceKind.NOT_BOOLEAN, index, expected, actual)
    if expected.dtype.kind == "f" and actual.dtype.kind != "f":
        return Difference(DifferenceKind.NOT_REAL, index, expected, actual)
    if actual.shape != expected.shape:
        return Difference(DifferenceKind.SHAPE, index, expected, actual)
    wrong = mismatched(expected, actual, tol)
    if not wrong.any():
        return None
    with np.errstate(all="ignore"):
        broken = wrong & ~np.isfinite(actual.astype(np.float64)) & np.isfinite(expected.astype(np.float64))
    if broken.any() and expected.ndim:
        return Difference(DifferenceKind.NON_FINITE, index, expected, actual)
    return Difference(DifferenceKind.VALUES, index, expected, actual)


def find_difference(reference: Parts, actual, tol: Tolerance) -> Difference | None:
    """The first difference between the student's ``actual`` result and the reference's.

    Parameters
    ----------
    reference : Parts
        The reference's result.
    actual : numpy.ndarray or tuple of numpy.ndarray
        What the student's call returned.
    tol : Tolerance
    """
    structural = _structure_difference(reference, actual)
    if structural is not None:
        return structural
    actual_parts = actual if reference.is_tuple else (actual,)
    for index, (expected, part) in enumerate(zip(reference.arrays, actual_parts)):
        difference = part_difference(index, expected, part, tol)
        if difference is not None:
            return difference
    return None
