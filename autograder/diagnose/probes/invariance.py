"""Probes from changes of the inputs that leave the documented result as it is, or that only shrink the values.

Each probe first checks, on the reference, that its change leaves the expected result unchanged
(or, for :func:`overflows`, that the change keeps it finite): the probe stands on what the
function must do, not on a guess of what the student wrote. When the student is then right on
the changed inputs and wrong on the given ones, the function depends on what must not matter.
"""

from __future__ import annotations

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.probes.finding import Finding
from autograder.judge.compare import Parts
from autograder.judge.messages import distribution_axis, part_name

MASK = "mask"
#: What every masked entry of an argument holding NaN there is set to (any finite number the mask must zero).
MASKED_FILL = 0.25
#: A weight above this where the expected one is exactly 0 has leaked through the mask.
LEAKED_WEIGHT = 1e-12
#: Float inputs are multiplied by this to see whether a non-finite result comes from their size.
SMALL_SCALE = 1e-2


def _float_arrays(case: Case) -> dict[str, np.ndarray]:
    return {name: value for name, value in case.arguments.items()
            if name != MASK and isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.size}


def _right_when_scaled_down(case: Case) -> bool:
    """Whether the student is right on the call's float inputs multiplied by :data:`SMALL_SCALE`."""
    small = {name: (value * SMALL_SCALE).astype(value.dtype) for name, value in _float_arrays(case).items()}
    return bool(small) and case.matches_reference_of(case.student_with(**small), case.reference_with(**small))


def _wrong(case: Case) -> bool:
    """Whether the student's result is a result, and not the expected one (a right call tells nothing)."""
    return isinstance(case.student, Parts) and not case.matches_reference(case.student)


def _axis(case: Case) -> int:
    axis = case.arguments.get("axis", -1)
    return axis if isinstance(axis, (int, np.integer)) else -1


def not_shift_invariant(case: Case) -> list[Finding]:
    """Right once an argument is shifted so that each slice's maximum is 0, a shift that leaves the expected result
    as it is, and wrong on the argument as given: the function clips or shifts by a fixed number where the
    documented computation is invariant (a softmax inside, ``softmax(x - c) = softmax(x)``)."""
    if not _wrong(case):
        return []
    for name, value in _float_arrays(case).items():
        if value.ndim < 1 or value.shape[_axis(case)] < 2 or not np.isfinite(value).all():
            continue
        shifted = (value - np.max(value, axis=_axis(case), keepdims=True)).astype(value.dtype)
        if np.allclose(shifted, value) or not case.matches_reference(case.reference_with(**{name: shifted})):
            continue
        if case.matches_reference(case.student_with(**{name: shifted})):
            return [Finding("call.not_shift_invariant", {"argument": name})]
    return []


def _blocked_keys(case: Case) -> np.ndarray | None:
    """Where the mask blocks a key for every query, ``(..., n_kv)`` with the mask's batch axes (a 1-D mask: its own
    False entries); None when it blocks none."""
    mask = case.arguments.get(MASK)
    if mask is None:
        return None
    mask = np.asarray(mask).astype(bool)
    if mask.ndim < 1:
        return None
    blocked = ~mask if mask.ndim == 1 else ~mask.any(axis=-2)
    return blocked if blocked.any() else None


def blocked_keys_matter(case: Case) -> list[Finding]:
    """Right once the rows of the key-side arguments at the keys the mask blocks for every query are set to 0, which
    leaves the expected result as it is, and wrong with them as given: the blocked keys' values still reach the
    result (a maximum taken before masking, a mask applied after the exponentials)."""
    blocked = _blocked_keys(case)
    if blocked is None or not _wrong(case):
        return []
    changes = {}
    for name, value in _float_arrays(case).items():
        if value.ndim >= 2 and value.shape[-2] == blocked.shape[-1]:
            try:
                zeroed = np.where(blocked[..., :, None], 0, value).astype(value.dtype)
            except ValueError:
                continue
            if zeroed.shape == value.shape:
                changes[name] = zeroed
    if not changes or not case.matches_reference(case.reference_with(**changes)):
        return []
    if not case.matches_reference(case.student_with(**changes)):
        return []
    return [Finding("call.blocked_keys_matter", {"arguments": ", ".join(changes)})]


def part_without_mask(case: Case) -> list[Finding]:
    """One part of a tuple right as if there were no mask, the others right with it: that part is computed before the
    mask is applied (``dV = A^T dZ`` from the weights before they are zeroed)."""
    if case.arguments.get(MASK) is None or not case.reference.is_tuple or not isinstance(case.student, Parts):
        return []
    unmasked = case.reference_with(mask=None)
    if not isinstance(unmasked, Parts) or len(unmasked.arrays) != len(case.reference.arrays):
        return []
    wrong = [i for i, want in enumerate(case.reference.arrays) if not case.part_matches(i, want)]
    if len(wrong) != 1 or len(case.reference.arrays) < 2:
        return []
    without = unmasked.arrays[wrong[0]]
    if without.dtype.kind in "fc" and not np.isfinite(without).all():
        return []  # NaN where no mask leaves a row without keys: a comparison accepts anything there, which tells nothing
    if not case.part_matches(wrong[0], without):
        return []
    return [Finding("call.part_without_mask", {"part": part_name(case.function, wrong[0], True)})]


def overflows(case: Case) -> list[Finding]:
    """Infinite or NaN entries where the expected ones are finite, on finite inputs, and right on the same inputs
    scaled down: an intermediate overflows (``exp`` of a large number)."""
    if not isinstance(case.student, Parts) or len(case.student.arrays) != len(case.reference.arrays):
        return []
    floats = _float_arrays(case)
    if not floats or not all(np.isfinite(v).all() for v in floats.values()):
        return []
    with np.errstate(all="ignore"):
        broken = any(got.shape == want.shape and got.dtype.kind == "f" and np.any(~np.isfinite(got) & np.isfinite(want))
                     for got, want in zip(case.student.arrays, case.reference.arrays))
    if not broken:
        return []
    return [Finding("call.overflows")] if _right_when_scaled_down(case) else []


def batch_shapes_broadcast(case: Case) -> list[Finding]:
    """Right once every argument is given the call's whole batch shape, wrong on this call, where the arguments' batch
    shapes differ and must broadcast: a step takes the batch shape from one argument alone."""
    from autograder.diagnose.localise import full_batch  # noqa: PLC0415  (localise imports the probes)

    built = full_batch(case)
    if built is None:
        return []
    changes = built[1]
    if not case.matches_reference_of(case.student_with(**changes), case.reference_with(**changes)):
        return []
    given = ", ".join(f"{name} {tuple(case.arguments[name].shape)}" for name in changes)
    return [Finding("call.batch_of_one_argument", {"shapes": given})]


def nan_where_masked(case: Case) -> list[Finding]:
    """Right once an argument's masked entries (NaN among them) are one finite number, which the mask zeroes anyway (the
    reference's result is the same), and wrong with the NaN: the mask multiplies (NaN * 0 is NaN) where it should
    select. A function that ignores the mask stays wrong on the finite number."""
    mask = case.arguments.get(MASK)
    if mask is None or not _wrong(case):
        return []
    blocked = ~np.asarray(mask).astype(bool)
    for name, value in _float_arrays(case).items():
        try:
            masked_nan = np.isnan(value) & np.broadcast_to(blocked, value.shape)
        except ValueError:
            continue
        if not masked_nan.any():
            continue
        # every masked entry made one finite number: the reference zeroes them all alike, and a function that
        # ignores the mask (rather than multiplying by it) stays wrong on them
        cleared = np.where(np.broadcast_to(blocked, value.shape), MASKED_FILL, value).astype(value.dtype)
        if case.matches_reference(case.reference_with(**{name: cleared})) and \
                case.matches_reference(case.student_with(**{name: cleared})):
            return [Finding("call.mask_multiplied", {"argument": name})]
    return []


def finite_mask_fill(case: Case) -> list[Finding]:
    """Weight at positions whose expected weight is exactly 0 (the masked ones) on these extreme scores, and right on
    the same inputs scaled down: the masked scores get a finite fill (-1e4) that the allowed scores pass."""
    located = distribution_axis(case.function, case.args, case.kwargs)
    if case.arguments.get(MASK) is None or located is None or not _wrong(case):
        return []
    weights, expected = case.student_part(located[0]), case.reference.arrays[located[0]]
    if weights is None or weights.shape != expected.shape or weights.dtype.kind != "f":
        return []
    with np.errstate(all="ignore"):
        leaked = (expected == 0) & np.isfinite(weights) & (np.abs(weights) > LEAKED_WEIGHT)
    if not leaked.any():
        return []
    return [Finding("call.finite_mask_fill")] if _right_when_scaled_down(case) else []


def array_like(case: Case) -> list[Finding]:
    """Right once the arguments given as (nested) lists are the numpy arrays they stand for (array_like, which the
    docstring allows). Tuples are left alone: a shape is one."""
    if case.matches_reference(case.student):
        return []
    changes = {}
    for name, value in case.arguments.items():
        if isinstance(value, list):
            array = np.asarray(value)
            if array.ndim >= 1 and array.dtype.kind in "biuf":
                changes[name] = array
    if changes and case.matches_reference_of(case.student_with(**changes), case.reference_with(**changes)):
        return [Finding("call.array_like", {"names": ", ".join(changes), "first": next(iter(changes))})]
    return []
