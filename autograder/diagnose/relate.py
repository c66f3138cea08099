"""How a wrong result relates to the right one: true whatever the bug behind it.

:func:`relation` compares each wrong part of the student's result with the reference's and
says which simple function of the expected part it is, when one fits: its axes in another
order, not summed over broadcast axes, the expected times a factor (constant, a sign, or one
that follows a named size of the call such as ``sqrt(d_k)``), the expected plus a constant,
or a factor or a term that is constant along one axis (a normalisation or a sum over another
extent). Nothing here knows a function: the names of the sizes come from the course's
docstrings (:mod:`.vocabulary`), the names of the parts from the contract.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.phrases import axis_of
from autograder.diagnose.relate_inputs import argument_relation, shape_relation, swapped_arguments
from autograder.diagnose.vocabulary import call_sizes
from autograder.i18n import Message, joined, msg
from autograder.judge.compare import mismatched

#: Relative tolerance of a fitted relation (looser than grading: the fit is itself computed).
RELATION_RTOL = 1e-4
#: Absolute tolerance of a fitted relation, relative to the largest expected entry.
RELATION_ATOL = 1e-6
#: A factor this close to 1 is stated as none: it prints as 1 and is what rounding leaves.
UNIT_FACTOR = 5e-4
#: Smallest factor stated as a relation.
SMALLEST_FACTOR = 1e-3
#: Largest number of trailing axes whose orders are tried (6 orders for 3 axes).
PERMUTED_AXES = 3


def _close(actual: np.ndarray, expected: np.ndarray) -> bool:
    scale = float(np.max(np.abs(expected))) if expected.size else 0.0
    with np.errstate(all="ignore"):
        return bool(np.allclose(actual, expected, rtol=RELATION_RTOL, atol=RELATION_ATOL * max(scale, 1.0)))


def _finite_pair(student: np.ndarray, expected: np.ndarray):
    """Both as float64 over the entries where both are finite (None when there are none, or shapes differ)."""
    if student.shape != expected.shape or student.dtype.kind not in "fiub" or expected.dtype.kind not in "fiub":
        return None
    s, e = student.astype(np.float64), expected.astype(np.float64)
    finite = np.isfinite(s) & np.isfinite(e)
    if not finite.any() or not np.array_equal(np.isfinite(s), np.isfinite(e)):
        return None
    return np.where(finite, s, 0.0), np.where(finite, e, 0.0)


def size_expressions(sizes: dict[str, int]) -> list[tuple[str, float]]:
    """Factors that follow a named size: ``d``, ``sqrt(d)``, ``2·d`` and their inverses, for each size."""
    expressions = []
    for name, size in sizes.items():
        for text, value in ((name, size), (f"sqrt({name})", math.sqrt(size)), (f"2·{name}", 2 * size)):
            expressions += [(text, float(value)), (f"1/{text}", 1.0 / value)]
    return expressions


def matching_sizes(factor: float, sizes: dict[str, int]) -> list[str]:
    """The size expressions (``sqrt(d_k)``, ``-1/d_k``...) equal to ``factor``."""
    found = []
    for sign, magnitude in ((1.0, factor), (-1.0, -factor)):
        for text, value in size_expressions(sizes):
            if magnitude > 0 and math.isclose(magnitude, value, rel_tol=1e-3):
                found.append(text if sign > 0 else f"-{text}")
    return found


def factor_phrase(factor: float, named: str | None) -> Message:
    """The factor by the size expression it follows (``sqrt(d_k) = 2.236``), a sign, or a number."""
    if math.isclose(factor, -1.0, rel_tol=1e-3):
        return msg("-1 (the opposite sign)")
    if named is not None:
        return msg("{expression} = {value}", expression=named, value=f"{factor:.4g}")
    return msg("the constant {value}", value=f"{factor:.4g}")


def followed_size(case: Case, index: int, factor: float, sizes: dict[str, int]) -> str | None:
    """The one size expression the factor follows: among those equal to it here, the one that still fits once
    the sizes are cut by one (another call; None when none is confirmed, so a coincidence is said as a number)."""
    candidates = matching_sizes(factor, sizes)
    if not candidates:
        return None
    from autograder.diagnose.localise import cut_sizes  # the variation of sizes lives with the localisation

    changed = cut_sizes(case, {name: size - 1 for name, size in sizes.items() if size > 2})
    if changed is None:
        return None
    sizes_after, student, expected = changed
    if student is None or index >= len(student.arrays) or index >= len(expected.arrays):
        return None
    pair = _finite_pair(np.asarray(student.arrays[index]), np.asarray(expected.arrays[index]))
    after = _factor(*pair) if pair is not None else None
    if after is None:
        return None
    confirmed = [text for text in candidates if text in matching_sizes(after, sizes_after)]
    return confirmed[0] if len(confirmed) == 1 else None


def _factor(s: np.ndarray, e: np.ndarray) -> float | None:
    denominator = float(np.sum(e * e))
    if denominator == 0.0:
        return None
    factor = float(np.sum(s * e) / denominator)
    if not np.isfinite(factor) or abs(factor) < SMALLEST_FACTOR or abs(factor - 1.0) <= UNIT_FACTOR:
        return None  # a factor near 0 is a result near 0: no relation to the expected one worth stating
    return factor if _close(s, factor * e) else None


def _along(s: np.ndarray, e: np.ndarray, axis: int) -> str | None:
    """"factor" or "term" when ``s`` is ``e`` times, or plus, something constant along ``axis`` (and not overall)."""
    if e.shape[axis] < 2:
        return None
    with np.errstate(all="ignore"):
        term = s - e
        if _close(term, np.broadcast_to(np.mean(term, axis=axis, keepdims=True), term.shape)):
            return "term"
        if np.all(np.abs(e) > RELATION_ATOL):
            ratio = s / e
            if _close(ratio, np.broadcast_to(np.mean(ratio, axis=axis, keepdims=True), ratio.shape)):
                return "factor"
    return None


def same_shape_relation(student: np.ndarray, expected: np.ndarray, axes: tuple, follows=None) -> Message | None:
    """What ``student`` is as a function of ``expected`` of the same shape, or None when nothing simple fits.

    ``follows(factor)`` names the size a factor follows (None: a number).
    """
    if expected.ndim >= 2 and expected.shape[-1] == expected.shape[-2] and _close(student, np.swapaxes(expected, -1, -2)):
        return msg("it is the expected one with its last two axes swapped (transposed)")
    pair = _finite_pair(student, expected)
    if pair is None or expected.size < 2:
        return None  # one number is always some factor of another: that says nothing
    s, e = pair
    if np.max(np.abs(s)) < SMALLEST_FACTOR * np.max(np.abs(e)):
        return None  # a result near 0 everywhere: no relation to the expected one worth stating
    factor = _factor(s, e)
    if factor is not None:
        return msg("it is the expected one times {factor}", factor=factor_phrase(factor, follows and follows(factor)))
    offset = float(np.mean(s - e))
    if offset and _close(s, e + offset):
        return msg("it is the expected one plus the constant {value}", value=f"{offset:.4g}")
    for axis in range(-expected.ndim, 0):
        kind = _along(s, e, axis)
        if kind == "factor":
            return msg("along {axis} it is the expected one times a factor of each slice's own: a normalisation or "
                       "scale taken over another extent", axis=axis_of(axes, axis, expected.ndim))
        if kind == "term":
            return msg("it differs from the expected one by a term that is constant along {axis}: a term missing "
                       "or added", axis=axis_of(axes, axis, expected.ndim))
    return None


def axis_order(student: np.ndarray, expected: np.ndarray) -> tuple[int, ...] | None:
    """The order (not the identity) of the expected one's trailing axes that gives ``student``, when one does."""
    if student.ndim != expected.ndim or sorted(student.shape) != sorted(expected.shape) or student.dtype.kind not in "fiub":
        return None
    lead = student.ndim - min(student.ndim, PERMUTED_AXES)
    for order in itertools.permutations(range(lead, student.ndim)):
        full = tuple(range(lead)) + order
        if full != tuple(range(student.ndim)) and student.shape == tuple(expected.shape[i] for i in full) \
                and _close(student.astype(np.float64), np.transpose(expected, full).astype(np.float64)):
            return full
    return None


def other_shape_relation(student: np.ndarray, expected: np.ndarray) -> Message | None:
    """Its axes in another order, or its broadcast axes not summed away: the relations between different shapes."""
    full = axis_order(student, expected)
    if full is not None:
        return msg("it has the expected values with its axes in the order {order} of the expected one's",
                   order=str(tuple(i - student.ndim for i in full)))
    extra = student.ndim - expected.ndim
    if extra < 0 or student.dtype.kind != "f":
        return None
    target = (1,) * extra + expected.shape
    if any(t not in (1, a) for t, a in zip(target, student.shape)):
        return None
    axes = tuple(i for i, (t, a) in enumerate(zip(target, student.shape)) if t == 1 and a != 1)
    with np.errstate(all="ignore"):
        summed = np.sum(student, axis=axes, keepdims=True).reshape(expected.shape) if axes else None
    if summed is not None and _close(summed, expected):
        return msg("it keeps the broadcast shape {shape}: summed over the axes where the input has size 1 or no "
                   "axis, it is the expected one {expected}", shape=str(student.shape), expected=str(expected.shape))
    return None


def relation(case: Case) -> Message | None:
    """What the student's wrong parts are as functions of the expected ones (None when no part fits a relation)."""
    if not hasattr(case.student, "arrays") or len(case.student.arrays) != len(case.reference.arrays):
        return None
    swapped = swapped_arguments(case)
    if swapped is not None:
        return swapped
    sizes = call_sizes(case.function, case.arguments)
    outputs = case.contract.outputs
    said, wrong, right = [], [], []
    for index, (student, expected) in enumerate(zip(case.student.arrays, case.reference.arrays)):
        name = outputs[index].name if index < len(outputs) else str(index)
        if case.part_matches(index, expected):
            right.append(name)
            continue
        wrong.append(name)
        axes = outputs[index].axes if index < len(outputs) else ()
        found = _part_relation(case, index, student, expected, axes, sizes)
        if found is not None:
            said.append(msg("{part}: {relation}", part=name, relation=found))
    if not said and not (right and wrong and len(outputs) > 1):
        return None
    if not said:
        said.append(msg("{parts} wrong", parts=", ".join(wrong)))
    if right and len(outputs) > 1:
        said.append(msg("{parts} right", parts=", ".join(right)))
    return joined(said)


#: Differences up to this share of the largest expected entry are small: what rounding or a lower precision leaves.
SMALL_DIFFERENCE = 1e-3


def _small_difference(student: np.ndarray, expected: np.ndarray) -> float | None:
    """The largest difference when every entry is finite and off by at most a small share of the values, else None."""
    if student.dtype.kind != "f" or expected.dtype.kind != "f" or not (np.isfinite(student).all() and np.isfinite(expected).all()):
        return None
    largest = float(np.max(np.abs(student.astype(np.float64) - expected), initial=0.0))
    return largest if 0 < largest <= SMALL_DIFFERENCE * float(np.max(np.abs(expected), initial=0.0)) else None


def _part_relation(case: Case, index: int, student: np.ndarray, expected: np.ndarray, axes: tuple, sizes) -> Message | None:
    """One wrong part's relation to the expected part: of the expected alone, else to the call's inputs."""
    if student.shape != expected.shape:
        return other_shape_relation(student, expected) or shape_relation(case, student, expected, axes)
    largest = _small_difference(student, expected)
    if largest is not None:  # off by small amounts alone: no factor, term or order to state
        return msg("it differs from the expected one by small amounts only (at most {size}), beyond the tolerance: a "
                   "rounding (np.round, a format) or a lower precision (float16, float32) on the way",
                   size=f"{largest:.2g}")
    follows = (lambda factor: followed_size(case, index, factor, sizes))
    found = same_shape_relation(student, expected, axes, follows)
    if found is None and student.dtype.kind in "fiub" and expected.dtype.kind in "fiub":
        found = argument_relation(case, student, expected, axes, _close)
    if found is None and student.dtype.kind in "fiub" and expected.dtype.kind in "fiub":
        found = one_slice_wrong(student, expected, case.tol)
    return found


def one_slice_wrong(student: np.ndarray, expected: np.ndarray, tol) -> Message | None:
    """Where every wrong entry shares its index along some axes of size 3 or more and the rest is right: those
    entries, as an index (``[0, :]``: the first row only), the others right (a loop that skips its first or last
    step, one slice left unset)."""
    wrong = mismatched(expected, student, tol)
    if expected.ndim == 0 or not wrong.any() or wrong.all():
        return None
    positions = np.argwhere(wrong)
    alone = [axis for axis in range(expected.ndim)
             if expected.shape[axis] >= 3 and np.unique(positions[:, axis]).size == 1]
    if not alone:
        return None
    index = ", ".join(str(positions[0, axis]) if axis in alone else ":" for axis in range(expected.ndim))
    return msg("it is the expected one except at [{index}], where every wrong entry lies (the rest is right)",
               index=index)
