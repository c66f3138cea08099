"""Words for the student: what a :class:`~autograder.judge.compare.Difference` means.

Messages speak about shapes, dtypes, the inputs' sizes and the first wrong entry, never
the hidden inputs' values. Each is a catalog message (:mod:`autograder.i18n`) whose numbers
and shapes are formatted here, once, so every language shows the same ones.
"""

from __future__ import annotations

import numpy as np

from autograder.judge.compare import (
    Difference,
    DifferenceKind,
    Tolerance,
    contract,
    mismatched,
    reference_signature,
)
from autograder.i18n import Message, msg, msg_n

#: Digits shown for a number in messages.
DIGITS = 4
#: Most digits shown to tell an expected entry from a wrong one that reads the same with :data:`DIGITS`.
MAX_DIGITS = 12
#: Magnitudes shown in fixed-point notation; others use scientific notation.
FIXED_POINT_RANGE = (1e-3, 1e5)


def number(value, digits: int = DIGITS) -> str:
    """A number as shown to students: ``digits`` decimals, or scientific notation when tiny or huge."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    value = float(value)
    low, high = FIXED_POINT_RANGE
    if value == 0 or not np.isfinite(value) or low <= abs(value) < high:
        return f"{value:.{digits}f}"
    return f"{value:.{digits}e}"


def distinct_numbers(expected, got) -> tuple[str, str]:
    """``expected`` and ``got`` as :func:`number` shows them, with more digits when those read the same.

    Two values that differ beyond the tolerance never read alike ("expected 0.3655, got 0.3655"):
    the digits grow until they differ, up to :data:`MAX_DIGITS` (equal text then means equal values
    to that many digits, e.g. 0.0 and -0.0).
    """
    for digits in range(DIGITS, MAX_DIGITS + 1):
        shown = number(expected, digits), number(got, digits)
        if shown[0] != shown[1]:
            return shown
    return shown


def entry(expected: np.ndarray, actual: np.ndarray, index: tuple) -> Message:
    """``"at index (0, 2): expected 0.4519, got 0.3000"`` (no index for 0-d arrays; more digits when 4 read alike)."""
    shown = distinct_numbers(expected[index], actual[index])
    values = {"expected": shown[0], "got": shown[1]}
    if index:
        return msg("at index {index}: expected {expected}, got {got}", index=str(index), **values)
    return msg("expected {expected}, got {got}", **values)


def first_mismatch(expected: np.ndarray, actual: np.ndarray, tol: Tolerance) -> Message | str:
    """Describe the first entry (in C order) where ``actual`` is not close to ``expected``.

    Returns
    -------
    str
        E.g. ``"at index (0, 2, 1): expected 0.4519, got 0.3000"``; empty when every
        defined entry is close.

    Raises
    ------
    ValueError
        When the shapes differ.
    """
    expected, actual = np.asarray(expected), np.asarray(actual)
    if expected.shape != actual.shape:
        raise ValueError(f"shapes differ: expected {expected.shape}, actual {actual.shape}")
    wrong = np.argwhere(mismatched(expected, actual, tol))  # (n_wrong, ndim)
    if not len(wrong):
        return ""
    return entry(expected, actual, tuple(int(i) for i in wrong[0]))


def input_shapes(function: str, args: tuple, kwargs: dict) -> str:
    """The inputs' shapes and integer values, e.g. ``"Q (2, 5, 4), num_heads=2"``."""
    try:
        bound = reference_signature(function).bind(*args, **kwargs)
    except TypeError:
        return ""
    described = []
    for name, value in bound.arguments.items():
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            described.append(f"{name}={int(value)}")
        elif isinstance(value, (np.ndarray, list, tuple)):
            described.append(f"{name} {np.shape(value)}")
    return ", ".join(described)


def distribution_axis(function: str, args: tuple, kwargs: dict) -> tuple[int, int] | None:
    """(part index, axis) of the part that must sum to 1, if the function has one."""
    distribution = contract(function).distribution
    if distribution is None:
        return None
    axis = distribution.axis
    if isinstance(axis, str):
        bound = reference_signature(function).bind(*args, **kwargs)
        bound.apply_defaults()
        axis = bound.arguments[axis]
    return distribution.output, int(axis)


def sums_note(actual: np.ndarray, axis: int, tol: Tolerance) -> Message | str:
    """A note on the sums along ``axis`` when they are not all 1."""
    with np.errstate(all="ignore"):
        sums = np.sum(actual.astype(np.float64), axis=axis)
    finite = sums[np.isfinite(sums)]
    if not finite.size or np.allclose(finite, 1.0, rtol=tol.rtol, atol=tol.atol):
        return ""
    return msg("; its sums along axis {axis} should all be 1 but range from {low} to {high}",
               axis=str(axis), low=number(finite.min()), high=number(finite.max()))


def part_name(function: str, part: int, is_tuple: bool) -> Message | str:
    """The documented name of a returned part (``"A"``), or ``"result[i]"``."""
    names = contract(function).output_names
    if not is_tuple:
        return names[0] if len(names) == 1 else msg("the result")
    return names[part] if part < len(names) and len(names) > 1 else f"result[{part}]"


def _structural(function: str, difference: Difference) -> Message:
    names = contract(function).output_names
    arity = {"size": str(len(names)), "names": ", ".join(names), "got": str(difference.got)}
    if difference.kind is DifferenceKind.SINGLE_NOT_TUPLE:
        return msg("expected a tuple of {size} ({names}), got a single {got}", **arity)
    if difference.kind is DifferenceKind.ARITY:
        return msg("expected a tuple of {size} ({names}), got a tuple of {got}", **arity)
    return msg("expected a single array, got a tuple of {got}", got=str(difference.got))


def _values(name: Message | str, difference: Difference, tol: Tolerance, sums_axis: int | None) -> Message:
    expected, actual = difference.expected, difference.actual
    tolerance = msg(" (rtol={rtol}, atol={atol})", rtol=f"{tol.rtol:g}", atol=f"{tol.atol:g}")
    if expected.ndim == 0:
        return msg("{name} differs{tolerance}: {first}", name=name, first=first_mismatch(expected, actual, tol),
                   tolerance=tolerance)
    wrong = mismatched(expected, actual, tol)
    sums = "" if sums_axis is None else sums_note(actual, sums_axis, tol)
    return msg_n("{name} differs in {wrong} of {n} entry{tolerance}; first {first}{sums}",
                 "{name} differs in {wrong} of {n} entries{tolerance}; first {first}{sums}",
                 wrong.size, name=name, wrong=str(int(wrong.sum())), first=first_mismatch(expected, actual, tol),
                 sums=sums, tolerance=tolerance)


def _non_finite(name: Message | str, difference: Difference) -> Message:
    expected, actual = difference.expected, difference.actual
    with np.errstate(all="ignore"):
        broken = ~np.isfinite(actual.astype(np.float64)) & np.isfinite(expected.astype(np.float64))
    index = tuple(int(i) for i in np.argwhere(broken)[0])
    return msg_n("{name} has {n} non-finite entry (inf or nan) where finite values are expected; first {first}",
                 "{name} has {n} non-finite entries (inf or nan) where finite values are expected; first {first}",
                 int(broken.sum()), name=name, first=entry(expected, actual, index))


def describe(difference: Difference, function: str, args: tuple, kwargs: dict, is_tuple: bool, tol: Tolerance) -> Message:
    """What is wrong with the student's result, in one sentence."""
    kind = difference.kind
    if kind in (DifferenceKind.SINGLE_NOT_TUPLE, DifferenceKind.ARITY, DifferenceKind.TUPLE_NOT_SINGLE):
        return _structural(function, difference)
    name = part_name(function, difference.part, is_tuple)
    if kind is DifferenceKind.NOT_AN_ARRAY:
        return msg("{name} is not an array", name=name)
    if kind is DifferenceKind.NOT_BOOLEAN:
        return msg("{name} has dtype {dtype}; expected a boolean array", name=name, dtype=str(difference.actual.dtype))
    if kind is DifferenceKind.NOT_REAL:
        return msg("{name} has dtype {dtype}; expected a real floating-point array", name=name,
                   dtype=str(difference.actual.dtype))
    if kind is DifferenceKind.SHAPE:
        shapes = {"name": name, "got": str(difference.actual.shape), "expected": str(difference.expected.shape)}
        inputs = input_shapes(function, args, kwargs)
        if inputs:
            return msg("{name} has shape {got}; expected {expected} for inputs {inputs}", inputs=inputs, **shapes)
        return msg("{name} has shape {got}; expected {expected}", **shapes)
    if kind is DifferenceKind.NON_FINITE:
        return _non_finite(name, difference)
    distribution = distribution_axis(function, args, kwargs)
    sums_axis = distribution[1] if distribution is not None and distribution[0] == difference.part else None
    return _values(name, difference, tol, sums_axis)
