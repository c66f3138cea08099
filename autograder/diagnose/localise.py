"""Where a function fails: its failed call re-run under controlled variations of the inputs.

Each variation changes one thing about the failed call's own inputs (a bounded number of
calls into the student's function, through the sandboxed submission): batch axes dropped,
or given to every argument; every named size cut to one common size, or to sizes that all
differ; the other float precision; values scaled down; the mask in the full shape of the
scores, or no mask, or an absent mask given as one that allows everything. The reference is run on the same changed inputs. A variation on which
the student's function is right tells the condition it fails under ("right without batch
axes, wrong with them"); when none is right, the ones tried say what it fails even without.
The argument roles and the named sizes come from the course's docstrings (:mod:`.vocabulary`)
and the contract's batch axes, not from a table of functions.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.probes.calls import batched_arguments
from autograder.diagnose.variations import (as_arrays, batched, counts_to_two, equal_counts, no_empty_rows, no_size_one,
                                            python_integers)
from autograder.diagnose.vocabulary import argument_shapes, call_sizes, frozen_axes, integer_arguments, sum_terms
from autograder.i18n import Message, N_, joined, msg
from autograder.judge.compare import Parts, same_values
from autograder.judge.tolerance import Tolerance

#: Most calls into the student's function one localisation makes.
MAX_LOCALISE_CALLS = 6
#: Variations tried beside the budget of :data:`MAX_LOCALISE_CALLS` (they apply to most calls and cost one call).
UNCOUNTED = ("allowing_mask",)
#: Calls the confirmation of a named bug makes (its six re-draws and the checks of what its hint states).
CONFIRM_CALLS = 8
#: The budget of calls the localisation, the relations (a size's check takes one) and the confirmation share.
OBSERVATION_CALLS = MAX_LOCALISE_CALLS + len(UNCOUNTED) + 1 + CONFIRM_CALLS
#: Variations still wrong that the "everywhere tried" sentence names (the first, most telling ones: a short line).
STILL_WRONG_SHOWN = 3
#: Inputs this large are tried scaled down even when nothing overflowed.
HUGE_INPUT = 1e3
#: Values are scaled by this to try small scores.
SMALL_SCALE = 1e-2
#: Tolerance floor when a variation is in float32.
FLOAT32_FLOOR = Tolerance(rtol=1e-4, atol=1e-6)
#: Smallest common size the sizes are cut to (size 1 broadcasts and would test something else).
SMALLEST_COMMON = 2

#: What a variation on which the student is right says, by variation (the catalog's sentences).
RIGHT_WHEN = {
    "unbatched": N_("right on the same inputs without batch axes, wrong as soon as batch axes are added"),
    "batched": N_("right once a batch axis is added to the same inputs, wrong on inputs without batch axes"),
    "full_batch": N_("right once every argument is given the batch axes, wrong on this call, where some lack them"),
    "equal_sizes": N_("right when the sizes {sizes} are made equal, wrong when they differ"),
    "distinct_sizes": N_("right when the sizes {sizes} all differ, wrong when some are equal"),
    "other_dtype": N_("right for {right} input, wrong only for {wrong} input"),
    "small_values": N_("right on small values, wrong on these larger ones"),
    "full_mask": N_("right when the mask has the full shape {shape}, wrong when it must broadcast from {given}"),
    "no_size_one": N_("right once every axis of size 1 is made of size 2, wrong with the axes of size 1 of {shapes}"),
    "no_empty_rows": N_("right once the positions along {axis} whose mask row allows nothing are left out, wrong with "
                        "them"),
    "no_mask": N_("right without a mask, wrong with one"),
    "allowing_mask": N_("right when {name} is given with every entry True, wrong when it is None (no mask: every key is allowed)"),
    "count_one": N_("right when {name} = 1, wrong when it is {value}"),
    "count_two": N_("right when {name} = 2, wrong when it is {value}"),
    "python_int": N_("right when {name} is a Python int, wrong when it is the same number as a {type}"),
    "as_arrays": N_("right when {names} is a numpy array, wrong when it is a {kind}"),
    "equal_counts": N_("right when {other} = {one}, wrong when they differ"),
    "same_argument": N_("right when {other} is the same array as {one}, wrong when they differ"),
}
#: What a variation on which the student is still wrong rules out.
STILL_WRONG = {
    "unbatched": N_("without batch axes"),
    "batched": N_("with a batch axis added"),
    "full_batch": N_("with batch axes in every argument"),
    "equal_sizes": N_("with the sizes {sizes} equal"),
    "distinct_sizes": N_("with the sizes {sizes} all different"),
    "other_dtype": N_("for {right} input"),
    "small_values": N_("on small values"),
    "full_mask": N_("with the mask in its full shape"),
    "no_size_one": N_("with no axis of size 1"),
    "no_empty_rows": N_("without the positions along {axis} whose mask row allows nothing"),
    "no_mask": N_("without a mask"),
    "allowing_mask": N_("with {name} given as all True"),
    "count_one": N_("with {name} = 1"),
    "count_two": N_("with {name} = 2"),
    "python_int": N_("with {name} a Python int"),
    "as_arrays": N_("with {names} as a numpy array"),
    "equal_counts": N_("with {other} = {one}"),
    "same_argument": N_("with {other} the same array as {one}"),
}


def _floats(case: Case) -> dict[str, np.ndarray]:
    return {n: v for n, v in case.arguments.items() if isinstance(v, np.ndarray) and v.dtype.kind == "f"}


def _first_wrong_example(case: Case, batch: tuple[int, ...]) -> tuple[int, ...]:
    """The batch index of the first wrong entry of the first wrong part (the first example when none is found)."""
    for actual, expected in zip(getattr(case.student, "arrays", ()), case.reference.arrays):
        if actual.shape == expected.shape and expected.ndim >= len(batch) and expected.shape[:len(batch)] == batch:
            with np.errstate(all="ignore"):
                wrong = ~np.isclose(actual.astype(np.float64), expected.astype(np.float64), rtol=case.tol.rtol,
                                    atol=case.tol.atol, equal_nan=True)
            if wrong.any():
                return tuple(int(i) for i in np.argwhere(wrong)[0][:len(batch)])
    return (0,) * len(batch)


def unbatched(case: Case) -> tuple[dict, dict] | None:
    """The example of the batch where the result is first wrong, alone (when the call has batch axes)."""
    batch, batched = batched_arguments(case)
    if not batch:
        return None
    index = _first_wrong_example(case, tuple(batch))
    core = {name: value.shape[value.ndim - case.contract.core_ndim_of(name):] for name, value in batched.items()}
    return {}, {name: np.ascontiguousarray(np.broadcast_to(value, tuple(batch) + core[name])[index])
                for name, value in batched.items()}


def full_batch(case: Case) -> tuple[dict, dict] | None:
    """Every batched argument broadcast to the call's whole batch shape (when some lacked batch axes)."""
    batch, batched = batched_arguments(case)
    arguments = case.arguments
    shapes = argument_shapes(case.function)
    candidates = {n: v for n, v in arguments.items() if isinstance(v, np.ndarray) and case.contract.core_ndim_of(n) is not None
                  and not (n in shapes and shapes[n].mask)}
    if not batch or all(v.shape[: v.ndim - case.contract.core_ndim_of(n)] == batch for n, v in candidates.items()):
        return None
    return {}, {n: np.ascontiguousarray(np.broadcast_to(v, batch + v.shape[v.ndim - case.contract.core_ndim_of(n):]))
                for n, v in candidates.items()}


def _kept(written: str, axis: str | None, length: int, sizes: dict[str, int], target: dict[str, int]):
    """What to keep of one axis: a slice, the indices of each summed size's block, or None to keep it whole."""
    if axis is not None:
        return slice(0, target[axis]) if axis in target and length != 1 else None
    terms = sum_terms(written)
    if terms is None or any(term not in sizes for term in terms) or sum(sizes[t] for t in terms) != length:
        return None
    starts = np.cumsum([0] + [sizes[t] for t in terms])[:-1]
    return np.concatenate([start + np.arange(target.get(t, sizes[t])) for start, t in zip(starts, terms)])


def _cut(case: Case, target: dict[str, int]) -> dict | None:
    """Every argument with its named axes (and sums of them) cut to ``target`` sizes (None when nothing changes)."""
    sizes = call_sizes(case.function, case.arguments)
    changes = {}
    for name, shape in argument_shapes(case.function).items():
        value = case.arguments.get(name)
        if not isinstance(value, np.ndarray) or value.ndim < len(shape.axes):
            continue
        cut = value
        for offset, (axis, written) in enumerate(zip(shape.axes, shape.written or (None,) * len(shape.axes))):
            position = value.ndim - len(shape.axes) + offset
            kept = _kept(written or "", axis, value.shape[position], sizes, target)
            if kept is not None:
                cut = cut[(slice(None),) * position + (kept,)]
        if cut.shape != value.shape:
            changes[name] = np.ascontiguousarray(cut)
    return changes or None


def cut_sizes(case: Case, target: dict[str, int]):
    """(the sizes after, the student's result, the reference's) with the named sizes cut to ``target``; None when
    nothing changes or the reference rejects it (one call from the localisation's budget)."""
    changes = _cut(case, {n: s for n, s in target.items() if n not in frozen_axes(case.function)})
    if changes is None:
        return None
    expected = case.reference_with(**changes)
    if not isinstance(expected, Parts):
        return None
    after = call_sizes(case.function, {**case.arguments, **changes})
    if not case.calls_left(OBSERVATION_CALLS):
        return None
    return after, case.student_with(budget=OBSERVATION_CALLS, **changes), expected


def _free_sizes(case: Case) -> dict[str, int]:
    frozen = frozen_axes(case.function)
    return {n: s for n, s in call_sizes(case.function, case.arguments).items() if n not in frozen}


def equal_sizes(case: Case) -> tuple[dict, dict] | None:
    """Every free named size cut to the smallest of them (when they are not all equal already)."""
    sizes = _free_sizes(case)
    common = min(sizes.values(), default=0)
    if len(sizes) < 2 or common < SMALLEST_COMMON or len(set(sizes.values())) == 1:
        return None
    changes = _cut(case, {n: common for n in sizes})
    return ({"sizes": ", ".join(sizes)}, changes) if changes else None


def distinct_sizes(case: Case) -> tuple[dict, dict] | None:
    """Named sizes that coincide cut until they all differ (when some are equal)."""
    sizes = _free_sizes(case)
    if len(sizes) < 2 or len(set(sizes.values())) == len(sizes):
        return None
    target, used = {}, set()
    for name, size in sorted(sizes.items(), key=lambda item: item[1]):
        while size in used and size > SMALLEST_COMMON:
            size -= 1
        target[name] = size
        used.add(size)
    if len(used) < len(sizes):
        return None
    changes = _cut(case, target)
    return ({"sizes": ", ".join(sizes)}, changes) if changes else None


def other_dtype(case: Case) -> tuple[dict, dict] | None:
    """The float inputs in the other precision (float32 for float64, and back)."""
    floats = _floats(case)
    if not floats:
        return None
    single = all(v.dtype == np.float32 for v in floats.values())
    other = np.float64 if single else np.float32
    facts = {"right": np.dtype(other).name, "wrong": "float32" if single else "float64"}
    return facts, {n: v.astype(other) for n, v in floats.items()}


def _overflowed(case: Case) -> bool:
    """Non-finite student entries where the reference's are finite: what large values may cause."""
    student = getattr(case.student, "arrays", ())
    for actual, expected in zip(student, case.reference.arrays):
        if actual.shape == expected.shape and actual.dtype.kind == "f" and expected.dtype.kind == "f":
            if np.any(~np.isfinite(actual) & np.isfinite(expected)):
                return True
    return False


def small_values(case: Case) -> tuple[dict, dict] | None:
    """The float inputs scaled down, when the failure has non-finite values where finite ones are expected, or the
    inputs are huge (scores of thousands, where a large finite constant no longer dominates them)."""
    floats = {n: v for n, v in _floats(case).items() if n not in _masks(case)}
    largest = max((float(np.max(np.abs(v[np.isfinite(v)]), initial=0.0)) for v in floats.values()), default=0.0)
    if not floats or largest < 1.0 or not (_overflowed(case) or largest >= HUGE_INPUT):
        return None
    return {}, {n: (v * SMALL_SCALE).astype(v.dtype) for n, v in floats.items()}


def _masks(case: Case) -> dict[str, np.ndarray]:
    shapes = argument_shapes(case.function)
    return {n: v for n, v in case.arguments.items() if n in shapes and shapes[n].mask and isinstance(v, np.ndarray)}


def full_mask(case: Case) -> tuple[dict, dict] | None:
    """The one mask broadcast to the call's batch shape and its named sizes (when it was given smaller)."""
    masks = _masks(case)
    if len(masks) != 1:
        return None
    (name, mask), = masks.items()
    sizes = call_sizes(case.function, case.arguments)
    axes = argument_shapes(case.function)[name].axes
    if any(axis not in sizes for axis in axes):
        return None
    batch, _ = batched_arguments(case)
    full = np.ascontiguousarray(np.broadcast_to(mask, tuple(batch) + tuple(sizes[axis] for axis in axes)))
    return None if full.shape == mask.shape else ({"shape": str(full.shape), "given": str(mask.shape)}, {name: full})


def no_mask(case: Case) -> tuple[dict, dict] | None:
    """The call without its one mask."""
    masks = _masks(case)
    return ({}, {name: None for name in masks}) if len(masks) == 1 else None


def allowing_mask(case: Case) -> tuple[dict, dict] | None:
    """The call's absent mask (None) given instead as one that allows everything, in the shape of its named axes."""
    shapes = argument_shapes(case.function)
    names = [name for name, shape in shapes.items() if shape.mask]
    if len(names) != 1 or names[0] not in case.arguments or case.arguments[names[0]] is not None:
        return None
    sizes = call_sizes(case.function, case.arguments)
    axes = shapes[names[0]].axes
    if any(axis not in sizes for axis in axes):
        return None
    return {"name": names[0]}, {names[0]: np.ones(tuple(sizes[axis] for axis in axes), dtype=bool)}


def counts_to_one(case: Case) -> list[tuple[dict, dict]]:
    """Each integer argument above 1 (a count or a size) set to 1, one at a time."""
    arguments = case.arguments
    return [({"name": name, "value": str(arguments[name])}, {name: type(arguments[name])(1)})
            for name in integer_arguments(case.function)
            if isinstance(arguments.get(name), (int, np.integer)) and not isinstance(arguments[name], bool)
            and arguments[name] > 1]


def same_arguments(case: Case) -> list[tuple[dict, dict]]:
    """Each array argument replaced by an earlier one whose documented axes differ from its own in one name only
    (keys and values from the queries' sequence, say)."""
    shapes = {n: s for n, s in argument_shapes(case.function).items() if not s.mask}
    arguments, found = case.arguments, []
    names = [n for n in shapes if isinstance(arguments.get(n), np.ndarray)]
    for position, other in enumerate(names):
        for one in names[:position]:
            a, b = shapes[one].axes, shapes[other].axes
            if len(a) == len(b) and sum(x != y for x, y in zip(a, b)) == 1 and None not in a + b:
                found.append(({"one": one, "other": other}, {other: arguments[one]}))
    return found


#: The variations, most telling first.
VARIATIONS: tuple[tuple[str, Callable], ...] = (
    ("as_arrays", as_arrays), ("allowing_mask", allowing_mask), ("no_size_one", no_size_one), ("full_batch", full_batch), ("unbatched", unbatched), ("batched", batched),
    ("full_mask", full_mask), ("no_empty_rows", no_empty_rows), ("small_values", small_values),
    ("distinct_sizes", distinct_sizes), ("equal_sizes", equal_sizes), ("other_dtype", other_dtype),
    ("no_mask", no_mask), ("count_one", counts_to_one), ("count_two", counts_to_two),
    ("python_int", python_integers), ("equal_counts", equal_counts), ("same_argument", same_arguments),
)


def _tolerance(case: Case, changes: dict) -> Tolerance:
    if any(isinstance(v, np.ndarray) and v.dtype == np.float32 for v in changes.values()):
        return Tolerance(max(case.tol.rtol, FLOAT32_FLOOR.rtol), max(case.tol.atol, FLOAT32_FLOOR.atol))
    return case.tol


def _degenerate(expected: Parts) -> bool:
    """A result that is all zeros (one key, say, leaves nothing to compute): being right on it says nothing."""
    return all(part.dtype.kind in "fiu" and not np.any(part) for part in expected.arrays)


def _counted(found: list) -> int:
    return sum(1 for key, _facts, _right in found if key not in UNCOUNTED)


def outcomes(case: Case) -> list[tuple[str, dict, bool]]:
    """(variation, facts, whether the student is right on it) for each variation that applies, within the call budget."""
    found = []
    for key, build in VARIATIONS:
        if _counted(found) >= MAX_LOCALISE_CALLS:
            break
        try:
            built = build(case)
        except (ValueError, TypeError, IndexError):
            built = None
        for facts, changes in (built if isinstance(built, list) else [built] if built else []):
            expected = case.reference_with(**changes)
            if not isinstance(expected, Parts) or _degenerate(expected) or _counted(found) >= MAX_LOCALISE_CALLS \
                    or not case.calls_left(OBSERVATION_CALLS):
                continue  # the reference rejects the changed inputs, or no call is left: this variation says nothing
            answer = case.student_with(budget=OBSERVATION_CALLS, **changes)
            if not case.calls_left(OBSERVATION_CALLS) and answer is None and case.timed_out:
                return found  # it hung: that says nothing about this variation, and no more calls are made
            right = answer is not None and same_values(answer, expected, _tolerance(case, changes))
            found.append((key, facts, right))
    return found


def localisation(case: Case) -> Message | None:
    """The condition the failure needs (the first variation that is right), else what it is still wrong without."""
    tried = outcomes(case)
    for key, facts, right in tried:
        if right:
            return msg("Where it fails: {condition}.", condition=Message(RIGHT_WHEN[key], facts))
    if not tried:
        return None
    telling = [(key, facts) for key, facts, _ in tried if key not in UNCOUNTED]  # "also with a mask allowing all" says little
    if not telling:
        return None
    still = joined([Message(STILL_WRONG[key], facts) for key, facts in telling[:STILL_WRONG_SHOWN]], ", ")
    return msg("Where it fails: everywhere tried, also {conditions}.", conditions=still)
