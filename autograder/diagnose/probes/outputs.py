"""Probes that compare the student's result with rearrangements of the reference's.

No new computation of the function is needed: outputs returned in another order, a
part that is the right one times a constant, a transposed weight matrix, or values
taken from the wrong input are all visible in the two results side by side.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.vocabulary import call_sizes
from autograder.diagnose.probes.finding import Finding, own
from autograder.i18n import N_, Message
from autograder.judge.compare import Parts
from autograder.judge.messages import distribution_axis, part_name

#: Reference entries smaller than this are left out when measuring a ratio.
SMALLEST_RATIO_BASE = 1e-6
#: Relative tolerance when matching a measured factor with a candidate.
FACTOR_RTOL = 1e-3


def not_float(case: Case) -> list[Finding]:
    """Integer or boolean results where the reference's are real numbers."""
    if not isinstance(case.student, Parts):
        return []
    for expected, actual in zip(case.reference.arrays, case.student.arrays):
        if expected.dtype.kind == "f" and actual.dtype.kind in "biu":
            return [Finding("call.not_float", {"dtype": str(actual.dtype)})]
    return []


def outputs_swapped(case: Case) -> list[Finding]:
    """A tuple whose parts are the reference's in another order."""
    if not case.reference.is_tuple or not isinstance(case.student, Parts):
        return []
    names = case.contract.output_names
    for order in itertools.permutations(range(len(case.reference.arrays))):
        if list(order) == sorted(order):
            continue
        shuffled = Parts(True, tuple(case.reference.arrays[i] for i in order))
        if case.matches(shuffled):
            return [Finding("call.outputs_swapped", {"expected": ", ".join(names)})]
    return []


def constant_factor(expected: np.ndarray, actual: np.ndarray, case: Case) -> float | None:
    """The ``c`` with ``actual == c * expected`` (None when no single constant fits)."""
    if expected.shape != actual.shape or actual.dtype.kind not in "iuf":
        return None
    with np.errstate(all="ignore"):
        base = np.abs(expected) > SMALLEST_RATIO_BASE
        ratios = actual[base] / expected[base]
    if not ratios.size or not np.all(np.isfinite(ratios)):
        return None
    factor = float(np.median(ratios))
    if abs(factor) <= SMALLEST_RATIO_BASE:
        return None  # all zeros is no scaled version of anything
    fits = np.isclose(actual, factor * expected, rtol=case.tol.rtol, atol=case.tol.atol)
    return factor if bool(fits.all()) and not math.isclose(factor, 1.0, rel_tol=FACTOR_RTOL) else None


def _factor_text(factor: float, sizes: dict[str, int]) -> str:
    """``"1/sqrt(d_h) = 0.5"`` when the factor is one over the root of a named size, else the number."""
    for name, size in sizes.items():
        if math.isclose(factor, 1 / math.sqrt(size), rel_tol=FACTOR_RTOL):
            return f"1/sqrt({name}) = {factor:.4g}"
        if math.isclose(factor, math.sqrt(size), rel_tol=FACTOR_RTOL):
            return f"sqrt({name}) = {factor:.4g}"
    return f"{factor:.4g}"


def _named_sizes(case: Case) -> dict[str, int]:
    """Sizes of the inputs' last axes by conventional name (d_k, d_h, d_s, d_a ...)."""
    names = {"Q": "d_k", "H": "d_h", "s": "d_s", "v_a": "d_a", "V": "d_v"}
    return {names[arg]: int(np.shape(value)[-1]) for arg, value in case.arguments.items()
            if arg in names and np.ndim(value) >= 1}


def scaled_part(case: Case) -> list[Finding]:
    """One part is the reference's times a constant: weights scaled after the softmax, or scaled scores."""
    if not isinstance(case.student, Parts) or len(case.student.arrays) != len(case.reference.arrays):
        return []
    located = distribution_axis(case.function, case.args, case.kwargs)
    sizes = _named_sizes(case)
    order = sorted(range(len(case.reference.arrays)), key=lambda i: located is None or i != located[0])  # weights first
    for index in order:
        factor = constant_factor(case.reference.arrays[index], case.student.arrays[index], case)
        if factor is None:
            continue
        if located is not None and located[0] == index:
            d_k = sizes.get("d_k")
            if d_k and math.isclose(factor, 1 / math.sqrt(d_k), rel_tol=FACTOR_RTOL):
                return own(case.function, "scale_after_softmax")
            return own(case.function, "not_normalized")
        every = call_sizes(case.function, case.arguments)
        averaged = sorted({name for name, size in every.items() if size > 1 and math.isclose(factor, 1 / size, rel_tol=FACTOR_RTOL)})
        if len({every[name] for name in averaged}) == 1:  # one size's reciprocal: a mean over that axis
            return [Finding("call.mean_for_sum", {"part": part_name(case.function, index, case.reference.is_tuple),
                                                  "size": f"{averaged[0]} = {every[averaged[0]]}"})]
        found = own(case.function, "scaled_output", factor=_factor_text(factor, sizes))
        if found:
            return found
    return []


def transposed_part(case: Case) -> list[Finding]:
    """A part whose last two axes are swapped (attention weights returned as A^T)."""
    student = case.student
    if not isinstance(student, Parts) or len(student.arrays) != len(case.reference.arrays):
        return []
    for index, expected in enumerate(case.reference.arrays):
        if expected.ndim >= 2 and case.part_matches(index, np.swapaxes(expected, -1, -2)):
            if expected.shape[-1] != expected.shape[-2] or not np.allclose(expected, np.swapaxes(expected, -1, -2)):
                return own(case.function, "transposed_weights")
    return []


def axis_moved(case: Case) -> list[Finding]:
    """A part that is the expected one with the ``axis`` argument's axis moved to the end or the front (or swapped
    with the last): the axis moved to be worked on and never moved back."""
    axis, student = case.arguments.get("axis"), case.student
    if not isinstance(axis, (int, np.integer)) or not isinstance(student, Parts):
        return []
    for index, expected in enumerate(case.reference.arrays):
        if expected.ndim < 2 or not -expected.ndim <= axis < expected.ndim:
            continue
        for position, moved in ((-1, np.moveaxis(expected, axis, -1)), (0, np.moveaxis(expected, axis, 0)),
                                (-1, np.swapaxes(expected, axis, -1))):
            if (moved.shape != expected.shape or not np.allclose(moved, expected)) and case.part_matches(index, moved):
                return [Finding("call.axis_moved", {"axis": str(int(axis)), "position": str(position)})]
    return []


#: Fewest entries along an axis for a shorter part to tell "one short" from "only one entry" (two entries make them one).
FEWEST_TOLD_APART = 3


def one_entry_short(case: Case) -> list[Finding]:
    """A part that is the expected one without its last (or first) entry along one axis: a slice end one too small
    (an inclusive end written as Python's exclusive one), a range one short; or that keeps only its first (or last)
    entry there, as an index that drops the wrong axis does (``[..., 0]`` where ``[..., 0, :]`` belongs)."""
    student = case.student
    if not isinstance(student, Parts) or len(student.arrays) != len(case.reference.arrays):
        return []
    mask = case.arguments.get("mask")
    if mask is not None and not np.all(np.asarray(mask, dtype=bool)):
        return []  # entries dropped where the mask blocks them (boolean indexing) are no slice cut one short
    for index, (got, want) in enumerate(zip(student.arrays, case.reference.arrays)):
        if got.ndim != want.ndim or got.dtype.kind not in "biuf" or got.size == 0:
            continue
        differing = [axis for axis in range(want.ndim) if got.shape[axis] != want.shape[axis]]
        if len(differing) != 1 or want.shape[differing[0]] < FEWEST_TOLD_APART:
            continue
        axis, n = differing[0], want.shape[differing[0]]
        if got.shape[axis] == n - 1:
            kept, bug = ((N_("last"), range(n - 1)), (N_("first"), range(1, n))), "call.one_entry_short"
        elif got.shape[axis] == 1:
            kept, bug = ((N_("first"), [0]), (N_("last"), [n - 1])), "call.one_entry_only"
        else:
            continue
        for end, entries in kept:
            if np.allclose(got, np.take(want, entries, axis=axis), rtol=case.tol.rtol, atol=case.tol.atol, equal_nan=True):
                return [Finding(bug, {"axis": str(axis - want.ndim), "end": Message(end, {}), "size": str(n)})]
    return []


def _same_shaped_wrong_parts(case: Case):
    """(index, expected part) of each wrong part whose shape is the expected one."""
    student = case.student
    if not isinstance(student, Parts) or len(student.arrays) != len(case.reference.arrays):
        return []
    return [(index, want) for index, (got, want) in enumerate(zip(student.arrays, case.reference.arrays))
            if got.shape == want.shape and not case.part_matches(index, want)]


def reversed_part(case: Case) -> list[Finding]:
    """A part that is the expected one reversed along one axis (np.flip, [::-1], np.flipud): a range run backwards,
    a triangle turned upside down."""
    for index, want in _same_shaped_wrong_parts(case):
        for axis in range(want.ndim):
            flipped = np.flip(want, axis)
            if want.shape[axis] > 1 and not np.array_equal(flipped, want) and case.part_matches(index, flipped):
                return [Finding("call.reversed_axis", {"part": part_name(case.function, index, case.reference.is_tuple),
                                                       "axis": str(axis - want.ndim)})]
    return []


def shifted_by_maximum(case: Case) -> list[Finding]:
    """A part that is the expected one minus its maximum along one axis (its largest entry 0 in every slice): a
    stability shift applied to a result that is not a softmax's input."""
    for index, want in _same_shaped_wrong_parts(case):
        if want.dtype.kind != "f" or not np.isfinite(want).all():
            continue
        for axis in range(want.ndim):
            if want.shape[axis] > 1 and case.part_matches(index, want - np.max(want, axis=axis, keepdims=True)):
                return [Finding("call.shifted_by_maximum", {"part": part_name(case.function, index, case.reference.is_tuple),
                                                            "axis": str(axis - want.ndim)})]
    return []


def values_confused(case: Case) -> list[Finding]:
    """Attention whose weights are right but whose output averages another input than V."""
    if case.function != "scaled_dot_product_attention" or not isinstance(case.student, Parts):
        return []
    if len(case.student.arrays) != 2 or not case.part_matches(1, case.reference.arrays[1]):
        return []
    weights = case.reference.arrays[1]  # (..., L_q, L_k)
    for name in ("K", "Q"):
        other = np.asarray(case.arguments[name], dtype=weights.dtype)
        try:
            candidate = weights @ other  # (..., L_q, d)
        except ValueError:
            continue
        if case.part_matches(0, candidate):
            return own(case.function, "values_confused", used=name)
    return []


def averaged_heads(case: Case) -> list[Finding]:
    """Multi-head attention returning the heads' weights averaged over the head axis."""
    if case.function != "multi_head_attention":
        return []
    weights = case.reference.arrays[1]  # (..., h, n_q, n_kv)
    return own(case.function, "averaged_heads") if case.part_matches(1, weights.mean(axis=-3)) else []


def proportional_weights(case: Case) -> list[Finding]:
    """Weights proportional to the reference's within each slice, but normalised by the wrong sum."""
    located = distribution_axis(case.function, case.args, case.kwargs)
    if located is None:
        return []
    part, axis = located
    expected, actual = case.reference.arrays[part], case.student_part(part)
    if actual is None or actual.shape != expected.shape or actual.dtype.kind != "f":
        return []
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # slices with no usable entry give NaN, which is fine
        ratio = np.where(expected > SMALLEST_RATIO_BASE, actual / expected, np.nan)
        per_slice = np.nanmedian(ratio, axis=axis, keepdims=True)
        fits = np.isclose(actual, per_slice * expected, rtol=case.tol.rtol, atol=case.tol.atol)
    factors = per_slice[np.isfinite(per_slice)]
    if not factors.size or np.any(factors <= 0) or np.allclose(factors, 1.0):
        return []
    if not bool(np.all(fits | ~np.isfinite(per_slice))):
        return []
    if np.isclose(float(np.sum(actual, dtype=np.float64)), 1.0):
        return own(case.function, "global_normalization") or own(case.function, "not_normalized")
    return own(case.function, "not_normalized")
