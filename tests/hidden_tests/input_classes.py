"""The input classes every hidden suite must draw (issue 25), as code: when one applies, and whether a call draws it.

A class applies to a graded function by what its reference and its assignment document, so a
new question is held to the classes its docstring implies without being listed anywhere:

* ``size-1 axis``: the function returns an array; some call's result has an axis of size 1
  (so ``np.squeeze`` fails).
* ``float32``, ``float64``: the function takes arrays (a documented shape other than the mask's);
  some call passes them all as float32, and one all as float64.
* ``integer``: the function takes arrays and its assignment's conventions say that integers are
  computed in float64; some call passes an integer array (the mask aside).
* ``<arg> batched alone``, ``<arg> unbatched alone``: two or more arguments carry batch axes
  (``core_ndim`` in the contract, a shape ``(..., ...)`` in the docstring), which broadcast; for each,
  a call where it has batch axes and another has none, and one the other way round (a way that
  cannot happen is listed in :data:`IMPOSSIBLE`).
* ``huge masked scores``: the mask is applied by the reference's ``mask_scores`` (a ``-inf``
  fill); some call's reference result changes when masked scores get ``-1e4`` added instead.
* ``fully masked row``: the docstring promises a result for a query with no allowed key; some
  call's mask has a row that allows none.
* ``axis <k>``: the function takes ``axis``; calls on arrays of 3 axes or more use the first, a
  middle and the last axis, each counted from the front and from the back.

Sizes that differ and masks that block are the draw claims, checked by test_draw_claims.py.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import re
import sys
from dataclasses import dataclass

import numpy as np

import attn_reference
from attn_reference import masks
from attn_reference.contract import OutputKind
from autograder.judge.claims import documented_shapes
from autograder.judge.compare import contract, mismatched, reference_function, reference_output
from tests.autograder.support import InProcessSubmission

#: What an additive mask adds to a masked score (the wrong version the class exists to catch).
ADDITIVE_MASK = -1e4
#: (function, class) pairs that no call can draw, and why.
IMPOSSIBLE = {
    ("scaled_dot_product_attention_backward", "dZ unbatched alone"):
        "dZ is shaped like Z, whose batch axes are those of every argument broadcast together",
}
AXIS_KINDS = tuple(f"axis {place} {sign}" for place in ("first", "middle", "last") for sign in ("+", "-"))


@dataclass(frozen=True)
class Call:
    """One call a hidden test made: the function, its arguments by name, and the test."""

    function: str
    arguments: dict
    test: str


class RecordingSubmission(InProcessSubmission):
    """The reference as a submission, keeping every call the hidden tests make (trusted code only)."""

    def __init__(self, hidden_folder):
        super().__init__({name: getattr(attn_reference, name) for name in attn_reference.__all__})
        self.folder, self.calls = str(hidden_folder), []

    def call_observed(self, function: str, *args, **kwargs):
        bound = inspect.signature(reference_function(function)).bind_partial(*args, **kwargs).arguments
        arguments = {name: value for name, value in bound.items() if not callable(value)}  # upstream stand-ins aside
        self.calls.append(Call(function, arguments, self._running_test()))
        return super().call_observed(function, *args, **kwargs)

    def _running_test(self) -> str:
        frame = sys._getframe()
        while frame is not None:
            if frame.f_code.co_filename.startswith(self.folder) and frame.f_code.co_name.startswith("test_"):
                return frame.f_code.co_name
            frame = frame.f_back
        return "?"


def _array_arguments(function: str) -> tuple[str, ...]:
    """The arguments documented with a shape, the mask aside."""
    return tuple(name for name in documented_shapes(function) if name != "mask")


def _batched_arguments(function: str) -> tuple[str, ...]:
    """The arguments whose leading axes are batch axes that broadcast against each other's."""
    shapes, own = documented_shapes(function), contract(function)
    return tuple(name for name in _array_arguments(function)
                 if own.core_ndim_of(name) is not None and shapes[name][:1] == ("...",))


def _fills_masked_scores(function) -> bool:
    """Whether ``function``, or a function it calls, applies its mask with ``mask_scores``."""
    seen, todo = set(), [function]
    while todo:
        current = todo.pop()
        if not inspect.isfunction(current) or current in seen:
            continue
        seen.add(current)
        if "mask_scores" in current.__code__.co_names:
            return True
        todo += [current.__globals__.get(name) for name in current.__code__.co_names]
    return False


def _promises_empty_rows(function: str) -> bool:
    """Whether a sentence of the docstring speaks of a query with no allowed key without calling it undefined."""
    doc = " ".join((inspect.getdoc(reference_function(function)) or "").split())
    sentences = re.split(r"(?<=[.;])\s", doc)
    return any("no allowed key" in sentence and "undefined" not in sentence for sentence in sentences)


def integers_documented(solution_source: str) -> bool:
    """Whether the assignment's conventions (its module docstring) say integer input is computed in float64."""
    doc = " ".join((ast.get_docstring(ast.parse(solution_source)) or "").split())
    return bool(re.search(r"\bintegers\b[^.]*float64", doc))


def applicable(function: str, integers: bool) -> tuple[str, ...]:
    """The classes ``function``'s hidden tests must draw (see the module's docstring)."""
    own, parameters = contract(function), inspect.signature(reference_function(function)).parameters
    classes = ["size-1 axis"] if any(output.kind is OutputKind.ARRAY for output in own.outputs) else []
    if _array_arguments(function):
        classes += ["float32", "float64"] + (["integer"] if integers else [])
    batched = _batched_arguments(function)
    if len(batched) > 1:
        classes += [f"{name} {way} alone" for name in batched for way in ("batched", "unbatched")]
    if "mask" in parameters and _fills_masked_scores(reference_function(function)):
        classes.append("huge masked scores")
    if "mask" in parameters and _promises_empty_rows(function):
        classes.append("fully masked row")
    if "axis" in parameters:
        classes += AXIS_KINDS
    return tuple(c for c in classes if (function, c) not in IMPOSSIBLE)


def _arrays(call: Call) -> dict[str, np.ndarray]:
    return {name: value for name, value in call.arguments.items() if isinstance(value, np.ndarray) and name != "mask"}


def _batch_ndims(call: Call) -> dict[str, int]:
    own = contract(call.function)
    return {name: value.ndim - own.core_ndim_of(name) for name, value in _arrays(call).items()
            if name in _batched_arguments(call.function)}


def _additive_mask_scores(scores, mask):
    """The wrong mask: ``ADDITIVE_MASK`` added to the masked scores instead of ``-inf``."""
    if mask is None:
        return scores
    return scores + np.where(masks.as_bool_mask(mask), 0.0, ADDITIVE_MASK).astype(scores.dtype)


@contextlib.contextmanager
def additive_masks():
    """Every reference module that fills masked scores adds ``ADDITIVE_MASK`` instead, for the duration."""
    right = masks.mask_scores
    patched = [module for name, module in list(sys.modules.items())
               if name.startswith("attn_reference") and getattr(module, "mask_scores", None) is right]
    for module in patched:
        module.mask_scores = _additive_mask_scores
    try:
        yield
    finally:
        for module in patched:
            module.mask_scores = right


def _parts(result) -> tuple:
    return tuple(result) if isinstance(result, tuple) else (result,)


def _changed_by_additive_mask(call: Call, tol) -> bool:
    right = _parts(reference_output(call.function, (), call.arguments))
    with additive_masks(), np.errstate(all="ignore"):
        wrong = _parts(reference_output(call.function, (), call.arguments))
    return any(mismatched(a, b, tol).any() for a, b in zip(right, wrong))  # where the reference is undefined (NaN),
    # any value is accepted: an additive mask that differs only there fails nothing


def _axis_kinds(call: Call) -> set[str]:
    """``axis <place> <sign>`` for a call on an array of 3 axes or more."""
    array = next(iter(_arrays(call).values()), None)
    if array is None or array.ndim < 3:
        return set()
    axis = call.arguments.get("axis", inspect.signature(reference_function(call.function)).parameters["axis"].default)
    place = {0: "first", array.ndim - 1: "last"}.get(axis % array.ndim, "middle")
    return {f"axis {place} {'-' if axis < 0 else '+'}"}


def drawn(call: Call, tol) -> set[str]:
    """The classes one call draws."""
    found = set()
    if any(1 in np.shape(part) for part in _parts(reference_output(call.function, (), call.arguments))):
        found.add("size-1 axis")
    arrays = _arrays(call)
    for dtype in ("float32", "float64"):
        if arrays and all(a.dtype == np.dtype(dtype) for a in arrays.values()):
            found.add(dtype)
    if any(a.dtype.kind in "iu" for a in arrays.values()):
        found.add("integer")
    batch = _batch_ndims(call)
    for name, ndim in batch.items():
        others = [n for other, n in batch.items() if other != name]
        if ndim and others and min(others) == 0:
            found.add(f"{name} batched alone")
        if not ndim and others and max(others) > 0:
            found.add(f"{name} unbatched alone")
    mask = call.arguments.get("mask")
    if isinstance(mask, np.ndarray) and mask.ndim:
        if not masks.as_bool_mask(mask).any(axis=-1).all():
            found.add("fully masked row")
        if _changed_by_additive_mask(call, tol):
            found.add("huge masked scores")
    if "axis" in inspect.signature(reference_function(call.function)).parameters:
        found |= _axis_kinds(call)
    return found


@functools.lru_cache(maxsize=None)
def _applicable_cached(function: str, integers: bool) -> tuple[str, ...]:
    return applicable(function, integers)


def missing(calls: list[Call], functions: tuple[str, ...], integers: bool, tol) -> dict[str, list[str]]:
    """For each of ``functions``, the applicable classes none of ``calls`` draws (functions with none missing left out)."""
    seen: dict[str, set[str]] = {function: set() for function in functions}
    for call in calls:
        if call.function in seen:
            seen[call.function] |= drawn(call, tol)
    gaps = {function: [c for c in _applicable_cached(function, integers) if c not in seen[function]] for function in functions}
    return {function: classes for function, classes in gaps.items() if classes}
