"""Keep a named bug only when it holds on re-drawn inputs and agrees with what the localisation says.

A probe or a replayed mutant names a bug from one failed call; a coincidence on those very
inputs (a square matrix where a transpose and a wrong axis give the same numbers, a size that
makes two scales equal) would name the wrong one. :func:`confirmed` re-draws the call: the
positions along each named size shuffled alike in every argument by a fixed generator (an
undocumented array along its last axis), every named size cut by one, and every integer
argument above 2 set to 2. It keeps a finding only when, on every re-draw where the student
is still wrong, the finder that named it names it again. The re-draws also scale large float inputs down to 1 at most.
A bug whose hint states a condition
("right for one example, wrong on batched input") is kept only when that condition applies
(:data:`CLAIMS`). The re-draws are fixed by the inputs, so every seed gives the same verdict
on the same call.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.probes.finding import Finding
from autograder.errors import CallTimeout
from autograder.judge.compare import Parts, same_values

#: Seed of the generator that permutes the re-drawn values (fixed: the same call is re-drawn alike on every seed).
REDRAW_SEED = 20250
#: Sizes up to this one are not cut by two.
SMALLEST_CUT_BY_TWO = 5
#: In a function given a generator, counts this large are numbers of samples, which a re-draw keeps.
SAMPLE_COUNT = 50
#: What a bug's hint claims, by the last part of its id: (localisation variation, "applies" to the call, or the
#: student is still "wrong" on it). Wrong on batched input: the call is batched, and giving every argument the
#: batch axes does not make it right; a mask that must broadcast: the call's mask is smaller than the scores;
#: masked scores made NaN: not a matter of their size.
CLAIMS = {
    "no_batch_support": (("unbatched", "applies"), ("full_batch", "wrong")),
    "no_keepdims": (("full_batch", "wrong"),),
    "mask_not_broadcast": (("full_mask", "applies"),),
    "mask_nan": (("small_values", "wrong"),),
}

#: A finder: a failed call -> the findings it stands behind.
Finder = Callable[[Case], list[Finding]]


def _permuted(case: Case) -> dict | None:
    """The call with the positions along each named size shuffled alike in every argument that has it (keys and
    their mask columns together, say), and an undocumented float array's last axis shuffled (None: nothing moves)."""
    from autograder.diagnose.vocabulary import argument_shapes, call_sizes, frozen_axes  # noqa: PLC0415

    rng = np.random.default_rng(REDRAW_SEED)
    frozen = frozen_axes(case.function)
    orders = {n: rng.permutation(s) for n, s in call_sizes(case.function, case.arguments).items() if n not in frozen}
    shapes = argument_shapes(case.function)
    changes = {}
    for name, value in case.arguments.items():
        if not isinstance(value, np.ndarray) or not value.ndim:
            continue
        moved = value
        if name in shapes and value.ndim >= len(shapes[name].axes):
            axes = shapes[name].axes
            for offset, axis in enumerate(axes):
                position = value.ndim - len(axes) + offset
                if axis in orders and value.shape[position] == len(orders[axis]):
                    moved = np.take(moved, orders[axis], axis=position)
        elif name not in shapes and value.dtype.kind == "f" and value.shape[-1] > 1:
            moved = np.take(value, rng.permutation(value.shape[-1]), axis=-1)
        if moved is not value:
            changes[name] = np.ascontiguousarray(moved)
    return changes or None


def _cut_by(case: Case, step: int, above: int) -> dict | None:
    """Every named size above ``above`` cut by ``step`` (None when nothing changes)."""
    from autograder.diagnose.localise import _cut  # noqa: PLC0415  (the cut of sizes lives with the localisation)
    from autograder.diagnose.vocabulary import call_sizes, frozen_axes  # noqa: PLC0415

    frozen = frozen_axes(case.function)
    return _cut(case, {n: s - step for n, s in call_sizes(case.function, case.arguments).items() if s > above and n not in frozen})


def _cut_by_one(case: Case) -> dict | None:
    """Every named size above 2 cut by one."""
    return _cut_by(case, 1, 2)


def _cut_by_two(case: Case) -> dict | None:
    """Every named size above :data:`SMALLEST_CUT_BY_TWO` cut by two (to 4 at least: below, d / 2, a rounded root and 1
    coincide): sizes whose roots or rounded roots coincide after a cut by one (a rounded sqrt(5) and sqrt(4)) rarely
    do after both."""
    return _cut_by(case, 2, SMALLEST_CUT_BY_TWO)


def _cut_by_count(case: Case) -> dict | None:
    """Every named size that an integer argument above 1 (a number of heads) divides cut by that count, so that it
    still divides them (None when there is no such count): the one cut a size a count must divide survives."""
    from autograder.diagnose.localise import _cut  # noqa: PLC0415
    from autograder.diagnose.vocabulary import call_sizes, frozen_axes, integer_arguments  # noqa: PLC0415

    arguments = case.arguments
    counts = [arguments[n] for n in integer_arguments(case.function) if isinstance(arguments.get(n), (int, np.integer))
              and not isinstance(arguments[n], bool) and arguments[n] > 1]
    if not counts:
        return None
    count = int(counts[0])
    frozen = frozen_axes(case.function)
    return _cut(case, {n: s - count for n, s in call_sizes(case.function, arguments).items()
                       if s % count == 0 and s - count >= 2 and n not in frozen})


def _counts_to_two(case: Case) -> dict | None:
    """Every integer argument above 2 (a count or a size such as a number of heads) set to 2 (None: there is none); in
    a function that samples from a given generator, a count of :data:`SAMPLE_COUNT` or more (a number of samples) is
    kept: two samples are too few for any finding about its estimates."""
    from autograder.diagnose.variations import counts_to_two  # noqa: PLC0415
    from autograder.inputs import RngSeed  # noqa: PLC0415

    samples = any(isinstance(value, RngSeed) for value in case.arguments.values())
    changes = {name: value for facts, change in counts_to_two(case) for name, value in change.items()
               if int(facts["value"]) > 2 and not (samples and int(facts["value"]) >= SAMPLE_COUNT)}
    return changes or None


def scaled_down(case: Case) -> dict | None:
    """Every real argument (a mask aside) whose entries exceed 1 in size divided by its largest, so that none does
    (None when none exceeds 1): on large inputs many wrong versions look alike (every weight of a row equal, NaN
    everywhere), on ordinary ones they part."""
    from autograder.diagnose.localise import _masks  # noqa: PLC0415  (localise imports the probes' helpers)

    masks = _masks(case)
    changes = {}
    for name, value in case.arguments.items():
        if not isinstance(value, np.ndarray) or value.dtype.kind not in "fiu" or name in masks or not np.isfinite(value).any():
            continue
        largest = float(np.max(np.abs(value[np.isfinite(value)])))
        if largest > 1.0:  # integers become float64 (they are computed in it), floats keep their type
            changes[name] = (value / largest).astype(value.dtype if value.dtype.kind == "f" else np.float64)
    return changes or None


def redraws(case: Case) -> list[Case]:
    """The failed call re-drawn (values permuted; sizes cut), as cases on which the student is still wrong (made
    once per case: every stage of the diagnosis confirms on the same re-draws)."""
    if case._redrawn is None:  # noqa: SLF001
        case._redrawn = _redrawn(case)  # noqa: SLF001
    return case._redrawn  # noqa: SLF001


def _redrawn(case: Case) -> list[Case]:
    from autograder.diagnose.localise import OBSERVATION_CALLS  # noqa: PLC0415

    found = []
    for build in (_permuted, _cut_by_one, _cut_by_two, _cut_by_count, _counts_to_two, scaled_down):
        if not case.calls_left(OBSERVATION_CALLS):
            break
        try:
            changes = build(case)
        except (ValueError, TypeError, IndexError):
            changes = None
        if not changes:
            continue
        expected = case.reference_with(**changes)
        student = case.student_with(budget=OBSERVATION_CALLS, **changes) if isinstance(expected, Parts) else None
        if student is None or same_values(student, expected, case.tol):
            continue  # it raises, or is right there: this re-draw says nothing for or against a bug
        args, kwargs = case.changed(**changes)
        found.append(Case(case.function, args, kwargs, case.tol, expected, student, _shared_caller(case), case.dependencies))
    return found


def _shared_caller(case: Case):
    """The student's function for a re-drawn case: not called again once any call of ``case`` hung."""
    def call(*args, **kwargs):
        if case.timed_out:
            raise CallTimeout("an earlier call hung")
        try:
            return case.call_student(*args, **kwargs)
        except CallTimeout:
            case._timed_out = True  # noqa: SLF001  (one hang stops every later call of this failed call)
            raise
    return call


def _holds(case: Case, variation: str, needed: str) -> bool:
    """``"applies"``: the variation applies to the call; ``"wrong"``: where it applies, the student is still wrong."""
    from autograder.diagnose import localise  # noqa: PLC0415  (localise imports the probes' helpers)

    try:
        built = dict(localise.VARIATIONS)[variation](case)
    except (ValueError, TypeError, IndexError):
        built = None
    if needed == "applies" or not built:
        return bool(built) or needed == "wrong"
    _facts, changes = built
    expected = case.reference_with(**changes)
    if not isinstance(expected, Parts) or not case.calls_left(localise.OBSERVATION_CALLS):
        return True  # nothing to compare with: no evidence against the bug
    answer = case.student_with(budget=localise.OBSERVATION_CALLS, **changes)
    return answer is None or not same_values(answer, expected, localise._tolerance(case, changes))  # noqa: SLF001


def claim_holds(case: Case, bug_id: str) -> bool:
    """Whether the failed call is of the kind a bug's hint speaks of, and fails where the hint says it does
    (:data:`CLAIMS`): a hint never states what the call disproves."""
    return all(_holds(case, variation, needed) for variation, needed in CLAIMS.get(bug_id.rsplit(".", 1)[-1], ()))


def confirmed(case: Case, found: Sequence[tuple[Finding, Finder]]) -> list[Finding]:
    """The findings (each with the finder that named it) that hold on every re-draw and whose claim holds."""
    if not found:
        return []
    again: dict[int, list[set[str]]] = {}
    cases = None
    kept = []
    for finding, finder in found:
        if not claim_holds(case, finding.id):
            continue
        if cases is None:
            cases = redraws(case)
        if id(finder) not in again:
            again[id(finder)] = [{(f.id, f.key) for f in finder(other)} for other in cases]
        if all((finding.id, finding.key) in ids for ids in again[id(finder)]):
            kept.append(finding)
    return kept
