"""Relations of a wrong result to the call's own inputs: arguments swapped, a factor that is an argument, a shape.

:mod:`.relate` compares the student's result with the expected one alone. These relations
also use the inputs, still without knowing the function:

- the result is what the reference gives with two arguments of one shape swapped, or with a
  graded step it calls (a keyword-only dependency of the reference) given its first two
  arguments swapped;
- a wrong part is the expected one times or divided by an argument of its shape, or differs
  from it by such an argument times something constant along one axis;
- a part of the wrong shape: an extra or a missing axis of size 1, or an axis with the size
  of another named size of the call (named from the docstrings, :mod:`.vocabulary`).
"""

from __future__ import annotations

import inspect
import itertools

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.phrases import axis_of
from autograder.diagnose.vocabulary import argument_shapes, call_sizes
from autograder.i18n import Message, N_, msg
from autograder.judge.compare import Parts, reference_signature


def _float_arrays(case: Case) -> dict[str, np.ndarray]:
    shapes = argument_shapes(case.function)
    return {n: v for n, v in case.arguments.items() if isinstance(v, np.ndarray) and v.dtype.kind == "f"
            and not (n in shapes and shapes[n].mask)}


def _dependencies(function: str) -> dict:
    """The graded steps the reference calls (its keyword-only parameters with a callable default)."""
    return {p.name: p.default for p in reference_signature(function).parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY and callable(p.default)}


def _swapping(step):
    def swapped(first, second, *rest, **kwargs):
        return step(second, first, *rest, **kwargs)
    return swapped


def swapped_arguments(case: Case) -> Message | None:
    """The result is the reference's with two arguments of one shape swapped, or a step called with them swapped."""
    if not isinstance(case.student, Parts):
        return None
    arrays = _float_arrays(case)
    for one, other in itertools.combinations(arrays, 2):
        if arrays[one].shape == arrays[other].shape and not np.array_equal(arrays[one], arrays[other]):
            expected = case.reference_with(**{one: arrays[other], other: arrays[one]})
            if case.matches_reference_of(case.student, expected):
                return msg("it is what the expected function gives with {one} and {other} swapped", one=one, other=other)
    for name, step in _dependencies(case.function).items():
        expected = case.reference_with(dependencies={name: _swapping(case.dependencies.get(name, step))})
        if case.matches_reference_of(case.student, expected) and not case.matches_reference(expected):
            return msg("it is what the expected function gives when its step {step} gets its first two arguments "
                       "swapped", step=name)
    return None


def _constant_along(values: np.ndarray, axis: int, close) -> bool:
    return values.shape[axis] > 1 and close(values, np.broadcast_to(np.mean(values, axis=axis, keepdims=True), values.shape))


def argument_relation(case: Case, student: np.ndarray, expected: np.ndarray, axes: tuple, close) -> Message | None:
    """A part that is the expected one times or over an argument of its shape, or off by one times a term
    constant along an axis (``close(a, b)`` is the relations' tolerance)."""
    arrays = {n: v.astype(np.float64) for n, v in _float_arrays(case).items() if v.shape == expected.shape}
    s, e = student.astype(np.float64), expected.astype(np.float64)
    if not (np.all(np.isfinite(s)) and np.all(np.isfinite(e))):
        return None
    with np.errstate(all="ignore"):
        for name, value in arrays.items():
            if np.all(np.abs(value) > 1e-12) and np.any(np.abs(value - 1.0) > 1e-6):
                if close(s, e / value):
                    return msg("it is the expected one divided by {argument}, entry by entry", argument=name)
                if close(s, e * value):
                    return msg("it is the expected one times {argument}, entry by entry", argument=name)
                for sign, text in ((1.0, N_("it is the expected one plus {argument}")),
                                   (-1.0, N_("it is the expected one minus {argument}"))):
                    if close(s, e + sign * value):
                        return Message(text, {"argument": name})
                term = (s - e) / value  # differences too small for a term are stated before (relate._small_difference)
                for axis in range(-e.ndim, 0):
                    if np.any(np.abs(term) > 1e-9) and _constant_along(term, axis, close):
                        return msg("it differs from the expected one by {argument} times a term constant along "
                                   "{axis}: the term subtracted or added along that axis is not the right one",
                                   argument=name, axis=axis_of(axes, axis, e.ndim))
    return normalised_relation(case, s, e, axes, close)


def _softmax(values: np.ndarray, axis: int) -> np.ndarray:
    shifted = np.exp(values - np.max(values, axis=axis, keepdims=True))
    return shifted / np.sum(shifted, axis=axis, keepdims=True)


def _row_norms(case: Case, shape: tuple) -> dict[str, np.ndarray]:
    """Each float argument's vector lengths (its norms along the last axis), placed to broadcast against ``shape``."""
    found = {}
    for name, value in _float_arrays(case).items():
        if value.ndim < 1 or value.shape[-1] < 2:
            continue
        norms = np.linalg.norm(value.astype(np.float64), axis=-1)
        for placed in (norms, norms[..., None]):
            try:
                if np.broadcast_shapes(placed.shape, shape) == tuple(shape):
                    found[name] = placed
                    break
            except ValueError:
                continue
    return found


def normalised_relation(case: Case, s: np.ndarray, e: np.ndarray, axes: tuple, close) -> Message | None:
    """A part that is the softmax of the expected one along an axis (weights where values are documented), or the
    expected one divided by the lengths of one or two arguments' vectors (a cosine where a dot product belongs)."""
    with np.errstate(all="ignore"):
        for axis in range(-e.ndim, 0):
            if e.shape[axis] > 1 and close(s, _softmax(e, axis)):
                return msg("it is the expected one exponentiated and normalised to sum to 1 along {axis}: weights where "
                           "the values themselves are documented", axis=axis_of(axes, axis, e.ndim))
        norms = {name: n for name, n in _row_norms(case, e.shape).items() if np.all(n > 1e-12)}
        for count in (2, 1):
            for names in itertools.combinations(norms, count):
                product = np.prod([norms[name] for name in names], axis=0) if count == 1 else norms[names[0]] * norms[names[1]]
                if np.any(np.abs(product - 1.0) > 1e-6) and close(s, e / product):
                    return msg("it is the expected one divided by the lengths of the vectors of {arguments}: each "
                               "vector normalised to length 1 (a cosine) where the plain products are documented",
                               arguments=" and ".join(names))
    return None


def _size_name(size: int, sizes: dict[str, int]) -> str | None:
    names = [name for name, value in sizes.items() if value == size]
    return names[0] if len(names) == 1 else None


def shape_relation(case: Case, student: np.ndarray, expected: np.ndarray, axes: tuple) -> Message | None:
    """What a part of the wrong shape has instead: an extra or a missing size-1 axis, or one axis of another size."""
    got, want = tuple(student.shape), tuple(expected.shape)
    facts = {"shape": str(got), "expected": str(want)}
    if len(got) == len(want) + 1 and any(got[:i] + got[i + 1:] == want for i in range(len(got)) if got[i] == 1):
        return msg("it has shape {shape} where {expected} is expected: an extra axis of size 1", **facts)
    if len(got) + 1 == len(want) and any(want[:i] + want[i + 1:] == got for i in range(len(want)) if want[i] == 1):
        return msg("it has shape {shape} where {expected} is expected: an axis of size 1 is missing (dropped by a "
                   "squeeze or an index)", **facts)
    if len(got) != len(want):
        return None
    differing = [i for i in range(len(got)) if got[i] != want[i]]
    if len(differing) != 1:
        return None
    sizes = call_sizes(case.function, case.arguments)
    position = differing[0] - len(got)
    name = _size_name(got[position], sizes)
    if name is None:
        return None
    return msg("it has shape {shape} where {expected} is expected: {axis} has the size of {name} = {size} (as when a "
               "sum or a product runs over another axis than the one it should)", axis=axis_of(axes, position, len(want)),
               name=name, size=str(got[position]), **facts)
