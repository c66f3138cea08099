"""More variations of a failed call for the localisation (:mod:`.localise`): input classes a failure may need.

A batch axis added to a call without one; every axis of size 1 made of size 2; a count set to 2
(the smallest where pairs interact); the positions whose mask row allows nothing removed. Each
returns ``(facts, changes)`` for :func:`autograder.diagnose.localise.outcomes`, or None (a list
for several) when it does not apply; the axes and roles come from the docstrings (:mod:`.vocabulary`).
"""

from __future__ import annotations

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.probes.calls import batched_arguments
from autograder.diagnose.vocabulary import argument_shapes, frozen_axes, integer_arguments


def batched(case: Case) -> tuple[dict, dict] | None:
    """The call without batch axes given one: every argument that may have them stacked twice (when none has)."""
    batch, _ = batched_arguments(case)
    shapes = argument_shapes(case.function)
    candidates = {n: v for n, v in case.arguments.items() if isinstance(v, np.ndarray) and v.ndim
                  and case.contract.core_ndim_of(n) is not None and n in shapes and shapes[n].batched
                  and not shapes[n].mask}
    if batch or not candidates:
        return None
    return {}, {n: np.ascontiguousarray(np.stack([v, v])) for n, v in candidates.items()}


def _named_ones(case: Case, arrays: dict) -> set[str]:
    """The named sizes that are 1 in every argument that has them (a size 1 beside a larger one broadcasts)."""
    seen: dict[str, set[int]] = {}
    for name, value in arrays.items():
        axes = argument_shapes(case.function)[name].axes
        for offset, axis in enumerate(axes):
            if axis is not None:
                seen.setdefault(axis, set()).add(value.shape[value.ndim - len(axes) + offset])
    return {axis for axis, sizes in seen.items() if sizes == {1}} - frozen_axes(case.function)


def no_size_one(case: Case) -> tuple[dict, dict] | None:
    """Every axis of size 1 repeated to size 2, in every argument that has it: the batch axes where the call's batch
    has size 1, and the named sizes that are 1 wherever they occur (None when there is none)."""
    shapes = argument_shapes(case.function)
    arrays = {n: v for n, v in case.arguments.items() if isinstance(v, np.ndarray) and n in shapes
              and v.ndim >= len(shapes[n].axes)}
    ones, (batch, _) = _named_ones(case, arrays), batched_arguments(case)
    changes = {}
    for name, value in arrays.items():
        axes, grown = shapes[name].axes, value
        lead = value.ndim - len(axes)
        for position in range(value.ndim):
            if value.shape[position] != 1:
                continue
            in_batch = position < lead and len(batch) >= lead - position and batch[len(batch) - (lead - position)] == 1
            if in_batch or (position >= lead and axes[position - lead] in ones):
                grown = np.repeat(grown, 2, axis=position)
        if grown.shape != value.shape:
            changes[name] = np.ascontiguousarray(grown)
    shown = ", ".join(f"{name} {arrays[name].shape}" for name in changes)
    return ({"shapes": shown}, changes) if changes else None


def _integers(case: Case) -> dict:
    """The integer arguments (counts and sizes; not bools) by name."""
    arguments = case.arguments
    return {name: arguments[name] for name in integer_arguments(case.function)
            if isinstance(arguments.get(name), (int, np.integer)) and not isinstance(arguments[name], bool)}


def counts_to_two(case: Case) -> list[tuple[dict, dict]]:
    """Each integer argument other than 2 set to 2, one at a time, in its own integer type (2 is the smallest count
    where pairs already interact, and the smallest above a size of 1)."""
    return [({"name": name, "value": str(value)}, {name: type(value)(2)}) for name, value in _integers(case).items()
            if value != 2]


def python_integers(case: Case) -> list[tuple[dict, dict]]:
    """Each numpy integer argument given as the same Python int, one at a time."""
    return [({"name": name, "type": type(value).__name__}, {name: int(value)})
            for name, value in _integers(case).items() if isinstance(value, np.integer)]


def _mask_rows(case: Case):
    """(the one mask's name, its row axis name, the row positions to keep) when some row of it allows nothing."""
    shapes = argument_shapes(case.function)
    masks = {n: v for n, v in case.arguments.items() if n in shapes and shapes[n].mask and isinstance(v, np.ndarray)}
    if len(masks) != 1:
        return None
    (name, mask), = masks.items()
    axes = shapes[name].axes
    if len(axes) < 2 or axes[-2] is None or mask.ndim < 2 or mask.shape[-2] < 2:
        return None
    allows = np.any(mask.astype(bool), axis=-1)  # (..., rows)
    keep = np.flatnonzero(np.all(allows.reshape(-1, allows.shape[-1]), axis=0))
    if keep.size in (0, mask.shape[-2]):
        return None
    return name, axes[-2], keep


def no_empty_rows(case: Case) -> tuple[dict, dict] | None:
    """The positions whose mask row allows nothing (a query with no allowed key) removed from every argument."""
    found = _mask_rows(case)
    if found is None:
        return None
    _, row_axis, keep = found
    shapes = argument_shapes(case.function)
    changes = {}
    for name, value in case.arguments.items():
        if name not in shapes or not isinstance(value, np.ndarray) or value.ndim < len(shapes[name].axes):
            continue
        axes = shapes[name].axes
        for offset, axis in enumerate(axes):
            position = value.ndim - len(axes) + offset
            if axis == row_axis and value.shape[position] > 1:
                changes[name] = np.ascontiguousarray(np.take(value, keep, axis=position))
    return ({"axis": row_axis}, changes) if changes else None


def as_arrays(case: Case) -> tuple[dict, dict] | None:
    """Every argument given as a list or tuple (array_like) passed as the numpy array it stands for."""
    shapes = argument_shapes(case.function)
    changes = {name: np.asarray(value) for name, value in case.arguments.items()
               if name in shapes and isinstance(value, (list, tuple))}
    if not changes:
        return None
    return {"names": ", ".join(changes), "kind": type(next(iter(case.arguments[n] for n in changes))).__name__}, changes


def equal_counts(case: Case) -> list[tuple[dict, dict]]:
    """For each pair of different integer arguments, the later one set to the earlier one's value (``n_keys = d_k``)."""
    integers = list(_integers(case).items())
    return [({"one": a, "other": b, "value": str(vb)}, {b: type(vb)(va)})
            for position, (b, vb) in enumerate(integers) for a, va in integers[:position] if va != vb and va > 1]
