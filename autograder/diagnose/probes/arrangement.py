"""Where a rearranging function puts each entry of its input, read from the student's own answer on numbered entries.

split_heads and merge_heads only move entries. Called on an input whose entries are their own positions
(0, 1, 2, ...), the student's result tells, along each of its axes, how far in the input one step goes: one
feature, one head's worth of features, one position. Said beside the same steps of the expected result, that
names the arrangement the student built ("steps 2 along d_model where the expected steps 5"), whatever reshape,
split or transpose built it.
"""

from __future__ import annotations

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.vocabulary import argument_shapes
from autograder.i18n import Message, joined, msg
from autograder.judge.compare import Parts, reference_function, run


def _numbered(case: Case) -> tuple[str, np.ndarray] | None:
    """The one float array argument, and the same shape holding each entry's position (None: not one such)."""
    arrays = [(n, v) for n, v in case.arguments.items() if isinstance(v, np.ndarray) and v.dtype.kind == "f"]
    if len(arrays) != 1 or arrays[0][1].size < 2:
        return None
    name, value = arrays[0]
    return name, np.arange(value.size, dtype=np.float64).reshape(value.shape)


def _axis_names(case: Case, name: str, ndim: int) -> list[str]:
    documented = argument_shapes(case.function).get(name)
    axes = list(documented.axes) if documented is not None else []
    names = [None] * (ndim - len(axes)) + axes[-ndim:] if len(axes) <= ndim else axes[-ndim:]
    return [axis or f"axis {i - ndim}" for i, axis in enumerate(names)]


def _step(stride: int, shape: tuple, names: list[str]) -> Message:
    """A step of ``stride`` entries of the input, said along the one input axis it moves along."""
    for axis in range(len(shape) - 1, -1, -1):
        unit = int(np.prod(shape[axis + 1:], dtype=np.int64))
        if stride % unit == 0 and 0 < stride // unit < shape[axis]:
            return msg("{count} along {axis}", count=str(stride // unit), axis=names[axis])
    return msg("{count} entries", count=str(stride))


def steps(ids: np.ndarray, shape: tuple, names: list[str]) -> Message | None:
    """How far in the input one step along each axis of ``ids`` goes (None when some axis has no single step)."""
    said = []
    for axis in range(ids.ndim):
        if ids.shape[axis] < 2:
            said.append(msg("-"))
            continue
        differences = np.diff(ids, axis=axis)
        if not np.all(differences == differences.flat[0]) or differences.flat[0] <= 0:
            return None
        said.append(_step(int(differences.flat[0]), shape, names))
    return joined(said)


def arrangement(case: Case) -> Message | None:
    """The steps of the student's axes and of the expected ones through the numbered input, or None."""
    numbered = _numbered(case)
    if numbered is None:
        return None
    name, ids = numbered
    answer = case.student_with(**{name: ids})
    expected = run(reference_function(case.function), *case.changed(**{name: ids}))
    if not isinstance(answer, Parts) or not isinstance(expected, Parts) or len(answer.arrays) != 1:
        return None
    got, want = answer.arrays[0], expected.arrays[0]
    if got.size != want.size or got.dtype.kind != "f" or np.array_equal(got, want) and got.shape == want.shape:
        return None
    names = _axis_names(case, name, ids.ndim)
    mine, theirs = steps(got, ids.shape, names), steps(want, ids.shape, names)
    if mine is None or theirs is None:
        return None
    return msg(": along its axes of sizes {shape} it steps through {argument} by ({steps}), where the expected axes "
               "of sizes {expected} step by ({expected_steps})", shape=str(got.shape), argument=name, steps=mine,
               expected=str(want.shape), expected_steps=theirs)
