"""Compare a student's result with the reference, and name the bug when it is wrong.

:func:`check_against_reference` checks structure, dtype, shape, finiteness and values and
raises :class:`Mismatch` on the first problem. The message speaks about shapes and the
first wrong entry, never the hidden inputs themselves. :func:`diagnose` runs the known
wrong versions (:mod:`autograder.mutants`) on the same inputs and returns those that
reproduce the student's result.

Positions where the reference is NaN are undefined (e.g. an attention row with every key
masked) and accept any value.
"""

from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass
from typing import Callable

import numpy as np

import attn_reference
from autograder.errors import GraderError, StudentException, SubmissionError
from autograder.inputs import materialize
from autograder.mutants.catalog import Mutant, mutants_for

#: Names of the parts of each tuple-returning function, used in messages.
OUTPUT_NAMES: dict[str, tuple[str, ...]] = {
    "scaled_dot_product_attention": ("Z", "A"),
    "attention_context": ("c", "alpha"),
    "multi_head_attention": ("Y", "A"),
    "dot_product_variance": ("var_raw", "var_scaled"),
    "scaled_dot_product_attention_backward": ("dQ", "dK", "dV"),
}
#: What a single-array result is called in messages.
SINGLE_OUTPUT_NAME = "the result"
#: Parts that are probability distributions: function -> (part index, axis, or the argument naming it).
NORMALIZED_OUTPUTS: dict[str, tuple[int, int | str]] = {
    "softmax": (0, "axis"),
    "scaled_dot_product_attention": (1, -1),
    "attention_context": (1, -1),
    "multi_head_attention": (1, -1),
}
#: Exceptions of the student's call that count as "raised" when a mutant raises too. An
#: unusable return value (None, a string) is not an exception: no mutant explains it.
RAISED_KINDS = (StudentException,)
#: Digits shown for a number in messages.
DIGITS = 4
#: Magnitudes shown in fixed-point notation; others use scientific notation.
FIXED_POINT_RANGE = (1e-3, 1e5)


@dataclass(frozen=True)
class Tolerance:
    """``actual`` is close to ``expected`` when ``|actual - expected| <= atol + rtol * |expected|``."""

    rtol: float
    atol: float


class Mismatch(AssertionError):
    """The student's result differs from the reference's.

    Attributes
    ----------
    student_message : str
        What is wrong: shapes, dtype, or the first mismatching entry; never the hidden inputs.
    diagnoses : tuple of Mutant
        Known bugs that reproduce the student's result exactly.
    """

    def __init__(self, student_message: str, diagnoses: tuple[Mutant, ...] = ()):
        self.student_message = student_message
        self.diagnoses = tuple(diagnoses)
        super().__init__(self.report())

    def report(self) -> str:
        """The message followed by one "Likely cause" line per diagnosis."""
        return "\n".join([self.student_message, *(f"Likely cause: {m.hint}" for m in self.diagnoses)])

    def __reduce__(self):
        return type(self), (self.student_message, self.diagnoses)


@dataclass(frozen=True)
class _Raised:
    """The outcome of a call that raised."""

    error: BaseException


@dataclass(frozen=True)
class _Result:
    """A returned value split into parts: one array, or one per tuple element."""

    is_tuple: bool
    parts: tuple[np.ndarray, ...]


def _result(value) -> _Result:
    if isinstance(value, tuple):
        return _Result(True, tuple(np.asarray(part) for part in value))
    return _Result(False, (np.asarray(value),))


def _reference_function(function: str) -> Callable:
    implementation = getattr(attn_reference, function, None)
    if function not in attn_reference.__all__ or implementation is None:
        raise GraderError(f"attn_reference has no graded function {function!r}")
    return implementation


def _fresh(value):
    """A private copy of the inputs with every RngSeed turned into a new generator."""
    return materialize(copy.deepcopy(value))


def _run(implementation: Callable, args: tuple, kwargs: dict) -> _Result | _Raised:
    try:
        with np.errstate(all="ignore"):
            return _result(implementation(*_fresh(tuple(args)), **_fresh(dict(kwargs))))
    except Exception as error:  # a mutant (or the reference) rejecting the inputs is an outcome
        return _Raised(error)


def reference_output(function: str, args: tuple, kwargs: dict):
    """Run ``attn_reference.<function>`` on fresh copies of the inputs.

    Parameters
    ----------
    function : str
        Name of a graded function exported by :mod:`attn_reference`.
    args, kwargs
        Its arguments; each :class:`autograder.inputs.RngSeed` becomes a fresh generator.

    Returns
    -------
    Whatever the reference returns (an array or a tuple).

    Raises
    ------
    GraderError
        When ``function`` is not a graded reference function.
    """
    implementation = _reference_function(function)
    return implementation(*_fresh(tuple(args)), **_fresh(dict(kwargs)))


def _numeric(array: np.ndarray) -> bool:
    return array.dtype.kind in "biuf"


def _mismatched(expected: np.ndarray, actual: np.ndarray, tol: Tolerance) -> np.ndarray:
    """Boolean array: where ``actual`` is not close to a defined (non-NaN) ``expected``."""
    expected = expected.astype(np.float64)
    actual = actual.astype(np.float64)
    return ~np.isnan(expected) & ~np.isclose(actual, expected, rtol=tol.rtol, atol=tol.atol)


def _agrees_with_reference(reference: _Result, other: _Result, tol: Tolerance) -> bool:
    if reference.is_tuple != other.is_tuple or len(reference.parts) != len(other.parts):
        return False
    return all(
        e.shape == a.shape and _numeric(a) and not _mismatched(e, a, tol).any()
        for e, a in zip(reference.parts, other.parts)
    )


def _exception_summary(error: BaseException) -> str:
    """``Type: message`` of an exception; for a student's, the last line of its traceback."""
    if isinstance(error, StudentException):
        lines = [line for line in error.student_message.splitlines() if line.strip()]
        return lines[-1].strip() if lines else ""
    return f"{type(error).__name__}: {error}".strip()


def _same_outcome(mutant: _Result | _Raised, student: _Result | _Raised, tol: Tolerance) -> bool:
    """Both raised the same exception, or both returned the same structure with close values (NaN matching NaN)."""
    if isinstance(mutant, _Raised) or isinstance(student, _Raised):
        both_raised = isinstance(mutant, _Raised) and isinstance(student, _Raised)
        return both_raised and _exception_summary(mutant.error) == _exception_summary(student.error)
    if mutant.is_tuple != student.is_tuple or len(mutant.parts) != len(student.parts):
        return False
    return all(
        m.shape == s.shape
        and _numeric(m)
        and _numeric(s)
        and np.isclose(s.astype(np.float64), m.astype(np.float64), rtol=tol.rtol, atol=tol.atol, equal_nan=True).all()
        for m, s in zip(mutant.parts, student.parts)
    )


def _student_outcome(outcome) -> _Result | _Raised | None:
    """The student's outcome in comparable form; None when it cannot match any mutant."""
    if isinstance(outcome, RAISED_KINDS):
        return _Raised(outcome)
    if isinstance(outcome, SubmissionError):
        return None
    try:
        return _result(outcome)
    except Exception:  # e.g. a ragged tuple numpy cannot turn into arrays
        return None


def _diagnose(
    function: str, args: tuple, kwargs: dict, outcome, tol: Tolerance, reference: _Result | _Raised
) -> tuple[Mutant, ...]:
    student = _student_outcome(outcome)
    if student is None:
        return ()
    matches: dict[str, Mutant] = {}
    for candidate in mutants_for(function):
        if candidate.id in matches:
            continue
        produced = _run(candidate.implementation, args, kwargs)
        if isinstance(reference, _Raised) or isinstance(produced, _Raised):
            indistinguishable = isinstance(reference, _Raised) and isinstance(produced, _Raised)
        else:
            indistinguishable = _agrees_with_reference(reference, produced, tol)
        if not indistinguishable and _same_outcome(produced, student, tol):
            matches[candidate.id] = candidate
    return tuple(matches.values())


def diagnose(function: str, args: tuple, kwargs: dict, outcome, tol: Tolerance) -> tuple[Mutant, ...]:
    """The known bugs that explain the student's outcome on these inputs.

    Parameters
    ----------
    function : str
        The graded function.
    args, kwargs
        The inputs the student's function was called with (RngSeed allowed).
    outcome : numpy.ndarray, tuple of numpy.ndarray, or SubmissionError
        What the student's call returned, or the error it failed with.
    tol : Tolerance

    Returns
    -------
    tuple of Mutant
        One per matching bug id (the first matching sub-variant), in catalog order. A mutant
        matches when its output has the student's structure and shapes and is close to it,
        or when it raised and the student's call raised the same exception (a
        :class:`StudentException` whose last traceback line is the mutant's
        ``Type: message``). An unusable return value matches nothing. Mutants that agree
        with the reference on these inputs never match.
    """
    reference = _run(_reference_function(function), args, kwargs)
    return _diagnose(function, args, kwargs, outcome, tol, reference)


def _number(value) -> str:
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    value = float(value)
    low, high = FIXED_POINT_RANGE
    if value == 0 or not np.isfinite(value) or low <= abs(value) < high:
        return f"{value:.{DIGITS}f}"
    return f"{value:.{DIGITS}e}"


def _entry(expected: np.ndarray, actual: np.ndarray, index: tuple) -> str:
    where = f"at index {index}: " if index else ""
    return f"{where}expected {_number(expected[index])}, got {_number(actual[index])}"


def first_mismatch(expected: np.ndarray, actual: np.ndarray, tol: Tolerance) -> str:
    """Describe the first entry (in C order) where ``actual`` is not close to ``expected``.

    Parameters
    ----------
    expected, actual : numpy.ndarray
        Real arrays of the same shape.
    tol : Tolerance

    Returns
    -------
    str
        E.g. ``"at index (0, 2, 1): expected 0.4519, got 0.3000"`` (no index for 0-d arrays);
        empty when every defined entry is close.

    Raises
    ------
    ValueError
        When the shapes differ.
    """
    expected, actual = np.asarray(expected), np.asarray(actual)
    if expected.shape != actual.shape:
        raise ValueError(f"shapes differ: expected {expected.shape}, actual {actual.shape}")
    wrong = np.argwhere(_mismatched(expected, actual, tol))  # (n_wrong, ndim)
    if not len(wrong):
        return ""
    return _entry(expected, actual, tuple(int(i) for i in wrong[0]))


def _input_shapes(function: str, args: tuple, kwargs: dict) -> str:
    """The inputs' shapes and integer values, e.g. ``"Q (2, 5, 4), num_heads=2"``."""
    try:
        bound = inspect.signature(_reference_function(function)).bind(*args, **kwargs)
    except TypeError:
        return ""
    described = []
    for name, value in bound.arguments.items():
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            described.append(f"{name}={int(value)}")
        elif isinstance(value, (np.ndarray, list, tuple)):
            described.append(f"{name} {np.shape(value)}")
    return ", ".join(described)


def _normalization_axis(function: str, args: tuple, kwargs: dict) -> tuple[int, int] | None:
    """(part index, axis) of the part that must sum to 1, if the function has one."""
    if function not in NORMALIZED_OUTPUTS:
        return None
    part, axis = NORMALIZED_OUTPUTS[function]
    if isinstance(axis, str):
        signature = inspect.signature(_reference_function(function))
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        axis = bound.arguments[axis]
    return part, axis


def _sums_note(actual: np.ndarray, axis: int, tol: Tolerance) -> str:
    """A note on the sums along ``axis`` when they are not all 1."""
    with np.errstate(all="ignore"):
        sums = np.sum(actual.astype(np.float64), axis=axis)
    finite = sums[np.isfinite(sums)]
    if not finite.size or np.allclose(finite, 1.0, rtol=tol.rtol, atol=tol.atol):
        return ""
    return (
        f"; its sums along axis {axis} should all be 1 but range from "
        f"{_number(finite.min())} to {_number(finite.max())}"
    )


def _count(n: int, singular: str, plural: str) -> str:
    return f"{n} {singular if n == 1 else plural}"


def _part_problem(
    name: str, expected: np.ndarray, actual, tol: Tolerance, inputs: str, sums_axis: int | None
) -> str:
    """What is wrong with one part of the result, or empty.

    ``sums_axis`` is the axis this part must sum to 1 along, or None when it need not.
    """
    try:
        actual = np.asarray(actual)
    except Exception:  # e.g. a ragged nested list
        return f"{name} is not an array"
    if expected.dtype.kind == "b" and actual.dtype.kind != "b":
        return f"{name} has dtype {actual.dtype}; expected a boolean array"
    if expected.dtype.kind == "f" and actual.dtype.kind != "f":
        return f"{name} has dtype {actual.dtype}; expected a real floating-point array"
    if actual.shape != expected.shape:
        suffix = f" for inputs {inputs}" if inputs else ""
        return f"{name} has shape {actual.shape}; expected {expected.shape}{suffix}"
    wrong = _mismatched(expected, actual, tol)
    if not wrong.any():
        return ""
    with np.errstate(all="ignore"):
        broken = wrong & ~np.isfinite(actual.astype(np.float64)) & np.isfinite(expected.astype(np.float64))
    tolerance = f"(rtol={tol.rtol:g}, atol={tol.atol:g})"
    if expected.ndim == 0:
        return f"{name} differs {tolerance}: {first_mismatch(expected, actual, tol)}"
    if broken.any():
        index = tuple(int(i) for i in np.argwhere(broken)[0])
        return (
            f"{name} has {_count(int(broken.sum()), 'non-finite entry', 'non-finite entries')} "
            f"(inf or nan) where finite values are expected; first {_entry(expected, actual, index)}"
        )
    sums = "" if sums_axis is None else _sums_note(actual, sums_axis, tol)
    return (
        f"{name} differs in {int(wrong.sum())} of {_count(wrong.size, 'entry', 'entries')} "
        f"{tolerance}; first {first_mismatch(expected, actual, tol)}{sums}"
    )


def _problem(function: str, args: tuple, kwargs: dict, reference: _Result, actual, tol: Tolerance) -> str:
    """What is wrong with the student's ``actual`` result, or empty."""
    names = OUTPUT_NAMES.get(function, ()) if reference.is_tuple else (SINGLE_OUTPUT_NAME,)
    if reference.is_tuple and len(names) != len(reference.parts):
        names = tuple(f"result[{i}]" for i in range(len(reference.parts)))
    arity = f"a tuple of {len(reference.parts)} ({', '.join(names)})"
    if reference.is_tuple and not isinstance(actual, tuple):
        return f"expected {arity}, got a single {type(actual).__name__}"
    if reference.is_tuple and len(actual) != len(reference.parts):
        return f"expected {arity}, got a tuple of {len(actual)}"
    if not reference.is_tuple and isinstance(actual, tuple):
        return f"expected a single array, got a tuple of {len(actual)}"
    actual_parts = actual if reference.is_tuple else (actual,)
    inputs = _input_shapes(function, args, kwargs)
    normalized = _normalization_axis(function, args, kwargs)
    for index, (name, expected, part) in enumerate(zip(names, reference.parts, actual_parts)):
        sums_axis = normalized[1] if normalized is not None and normalized[0] == index else None
        problem = _part_problem(name, expected, part, tol, inputs, sums_axis)
        if problem:
            return problem
    return ""


def check_against_reference(
    function: str, args: tuple, kwargs: dict, actual, tol: Tolerance, *, what: str = ""
) -> None:
    """Raise :class:`Mismatch` unless ``actual`` matches the reference on these inputs.

    Checks, in order: tuple arity, dtype kind (float where the reference is float, bool where
    it is bool), shape, finiteness, values within ``tol``.

    Parameters
    ----------
    function : str
        The graded function.
    args, kwargs
        The inputs the student's function was called with (RngSeed allowed).
    actual : numpy.ndarray, tuple of numpy.ndarray, or SubmissionError
        What the student's call returned; a SubmissionError is reported as it is.
    tol : Tolerance
    what : str
        Short label for this check, prefixed to the message; defaults to ``function``.

    Raises
    ------
    Mismatch
        With a message for the student and the matching mutants as diagnoses.
    GraderError
        When the reference itself rejects the inputs (a broken hidden test).
    """
    reference = _run(_reference_function(function), args, kwargs)
    if isinstance(reference, _Raised):
        raise GraderError(
            f"attn_reference.{function} raised on the test's inputs: {reference.error!r}"
        ) from reference.error
    if isinstance(actual, SubmissionError):
        problem = actual.student_message
    else:
        problem = _problem(function, args, kwargs, reference, actual, tol)
    if problem:
        diagnoses = _diagnose(function, args, kwargs, actual, tol, reference)
        raise Mismatch(f"{what or function}: {problem}", diagnoses)
