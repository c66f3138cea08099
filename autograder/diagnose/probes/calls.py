"""Probes that call the student's function again, on inputs chosen to isolate a cause.

Right on one example, wrong on a batch: the student's function is called on the first and
the last example of the failed batched call alone; when both come out right, the bug is
in how it handles batch axes (``K.T`` reversing every axis, a sum without
``keepdims``, ``np.dot``). Random numbers of its own: a function that takes ``rng`` is
called again with the same seed, and must give the same answer.
"""

from __future__ import annotations

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.probes.finding import Finding, own
from autograder.diagnose.relate import axis_order
from autograder.judge.compare import Parts, Raised, same_values
from autograder.inputs import RngSeed

#: The batch examples tried: the first and the last.
EXAMPLES = (0, -1)
#: Which registered bug a batching failure of a function is: softmax's has a more precise name.
BATCH_BUG = {"softmax": "no_keepdims"}


def batched_arguments(case: Case) -> tuple[tuple[int, ...], dict[str, np.ndarray]]:
    """The common batch shape and the array arguments that have batch axes."""
    batched, batches = {}, []
    for name, value in case.arguments.items():
        core = case.contract.core_ndim_of(name)
        if core is None or not isinstance(value, np.ndarray) or value.ndim <= core:
            continue
        batched[name] = value
        batches.append(value.shape[: value.ndim - core])
    try:
        return np.broadcast_shapes(*batches) if batches else (), batched
    except ValueError:
        return (), {}


def batch_example(case: Case, batch: tuple[int, ...], batched: dict[str, np.ndarray], position: int) -> dict:
    """The arguments of one batch example: every batched argument indexed at ``position``."""
    index = (position,) * len(batch)
    return {
        name: np.ascontiguousarray(np.broadcast_to(value, batch + value.shape[value.ndim - case.contract.core_ndim_of(name):])[index])
        for name, value in batched.items()
    }


def _one_batch_axis(case: Case, batch: tuple[int, ...], batched: dict[str, np.ndarray]) -> dict:
    """The arguments with their batch axes flattened into exactly one (a new one of size 1 when there are none)."""
    if batch:
        size = int(np.prod(batch))
        return {
            name: np.broadcast_to(value, batch + value.shape[value.ndim - case.contract.core_ndim_of(name):])
            .reshape((size,) + value.shape[value.ndim - case.contract.core_ndim_of(name):])
            for name, value in batched.items()
        }
    return {
        name: np.asarray(value)[None]
        for name, value in case.arguments.items()
        if case.contract.core_ndim_of(name) is not None and isinstance(value, np.ndarray)
    }


def _right_on(case: Case, arguments: dict) -> bool:
    if case.function == "softmax":
        arguments = {**arguments, "axis": -1}  # the examples have fewer axes: count the last one from the end
    answer = case.student_with(**arguments)
    return answer is not None and _agrees(case, answer, case.reference_with(**arguments))


def batch_only(case: Case) -> list[Finding]:
    """Right on single examples (or with exactly one batch axis), wrong on the call's batch shape."""
    if case.function == "softmax" and case.arguments["axis"] not in (-1, np.ndim(case.arguments["x"]) - 1):
        return []
    if not case.contract.core_ndim or case.matches_reference(case.student):
        return []
    batch, batched = batched_arguments(case)
    examples_right = bool(batch) and all(_right_on(case, batch_example(case, batch, batched, p)) for p in EXAMPLES) \
        and _right_on_first_wrong(case)
    if examples_right:
        return own(case.function, BATCH_BUG.get(case.function, "no_batch_support"))
    if len(batch) == 1 or not _right_on(case, _one_batch_axis(case, batch, batched)):
        return []
    # right once the batch axes are exactly one (several flattened, or a size-1 one added): not "wrong on batched input"
    return [Finding("call.one_batch_axis_only", {"count": str(len(batch))})]


def _right_on_first_wrong(case: Case) -> bool:
    """Right on the example of the batch where the result is first wrong, alone: else that example fails by itself."""
    from autograder.diagnose.localise import unbatched  # noqa: PLC0415  (localise imports this module)

    built = unbatched(case)
    return built is None or _right_on(case, built[1])


def _agrees(case: Case, answer: Parts, expected: Parts | Raised) -> bool:
    return isinstance(expected, Parts) and same_values(answer, expected, case.tol)


def own_generator(case: Case) -> list[Finding]:
    """A function given a seeded ``rng`` that answers differently to the same seed, or alike to another seed."""
    seeds = {name: value for name, value in case.arguments.items() if isinstance(value, RngSeed)}
    if not seeds or not isinstance(case.student, Parts):
        return []
    again = case.student_with()
    if again is not None and not case.matches(again):
        return own(case.function, "own_generator")  # the same seed, another answer
    if _is_theory(case) or not any(np.any(part) for part in case.student.arrays):
        return []  # no draws at all (the theoretical values returned), or nothing left of them (zeros): another bug
    reseeded = {name: RngSeed(seed.seed + 1) for name, seed in seeds.items()}
    expected = case.reference_with(**reseeded)
    if isinstance(expected, Parts) and all(np.array_equal(a, b) for a, b in zip(expected.arrays, case.reference.arrays)):
        return []  # the right answer does not change with the seed here (one key: J = 0): the seed tells nothing
    other = case.student_with(**reseeded)
    identical = other is not None and all(
        np.array_equal(a, b) for a, b in zip(other.arrays, case.student.arrays)
    )  # bit for bit: draws that merely average out alike are not the same draws
    return own(case.function, "own_generator") if identical and _an_estimate(case) else []


#: How far (relative) a sampling estimate of the documented quantity may be from the expected one.
ESTIMATE_RTOL = 0.5


def _an_estimate(case: Case) -> bool:
    """Whether the student's numbers are near the expected ones, as other draws of the same quantity would be: a
    number far from them that ignores the seed is a deterministic mistake (weights of 1 everywhere), not a generator."""
    pairs = list(zip(case.student.arrays, case.reference.arrays))
    return all(got.shape == want.shape and np.all(np.abs(got - want) <= ESTIMATE_RTOL * np.abs(want)) for got, want in pairs)


def _is_theory(case: Case) -> bool:
    """The variance experiment answering exactly (d_k, 1): what theory says, not what samples give."""
    d_k = case.arguments.get("d_k")
    values = [np.asarray(part).ravel() for part in case.student.arrays]
    return d_k is not None and all(v.size == 1 for v in values) and [float(v[0]) for v in values] == [float(d_k), 1.0]


def right_on_the_last_axis_only(case: Case) -> list[Finding]:
    """A function of an ``axis`` that is right when the axis is the last one, wrong for another axis: a step works on
    the last axis whatever ``axis`` says (a sum without keepdims, rows made by a reshape, a hard-coded -1).

    Every array argument with the axis is moved so that it comes last, the function is asked for
    ``axis=-1``, and its result moved back.
    """
    arguments = case.arguments
    axis = arguments.get("axis")
    arrays = {n: np.asarray(v) for n, v in arguments.items() if isinstance(v, np.ndarray)}
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool) or not arrays:
        return []
    ndim = max(a.ndim for a in arrays.values())
    if axis in (-1, ndim - 1) or not -ndim <= axis < ndim:
        return []
    moved = {n: np.ascontiguousarray(np.moveaxis(a, axis, -1)) for n, a in arrays.items() if a.ndim == ndim}
    answer = case.student_with(axis=-1, **moved)
    if answer is None or len(answer.arrays) != len(case.reference.arrays):
        return []
    if any(part.ndim != ndim for part in answer.arrays):
        return []
    back = Parts(case.reference.is_tuple, tuple(np.moveaxis(part, -1, axis) for part in answer.arrays))
    if any(axis_order(s, e) is not None for s, e in zip(getattr(case.student, "arrays", ()), case.reference.arrays)):
        return []  # the right values with the axes in another order: the axis was moved and not moved back
    return [Finding("call.last_axis_only", {"axis": str(int(axis))})] if case.matches_reference(back) else []


def mask_needs_full_shape(case: Case) -> list[Finding]:
    """Right once the mask is given the full shape of the scores: the function does not broadcast it."""
    mask = case.arguments.get("mask")
    if mask is None:
        return []
    located_shape = case.reference.arrays[-1].shape  # the weights: (..., L_q, L_k), (..., T) or (..., h, n_q, n_kv)
    if case.function == "multi_head_attention":
        located_shape = located_shape[:-3] + located_shape[-2:]  # a mask has no head axis
    mask = np.asarray(mask)
    if mask.shape == located_shape:
        return []
    try:
        full = np.ascontiguousarray(np.broadcast_to(mask, located_shape))
    except ValueError:
        return []
    answer = case.student_with(mask=full)
    return own(case.function, "mask_not_broadcast") if answer is not None and case.matches_reference(answer) else []
