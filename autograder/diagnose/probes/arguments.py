"""Probes that recompute the reference on changed arguments: the student used an input wrongly.

An inverted or ignored mask, a weight matrix used transposed, two weights swapped, a
projection left out, a read-out vector ignored, keys taken from the wrong sequence: each
is the reference applied to changed inputs, so one rule per kind of argument covers every
function that has such an argument. Arguments are recognised by the names the course
gives them (``mask``; weight matrices ``W_*``/``U_*``; the vector ``v_a``).
"""

from __future__ import annotations

import itertools

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.probes.finding import Finding, own
from autograder.judge.compare import Parts, Raised
from autograder.judge.messages import distribution_axis

MASK = "mask"
WEIGHT_PREFIXES = ("W_", "U_")
VECTOR_WEIGHTS = ("v_a",)
#: Documented bug ids that name a transposed weight more precisely, by function and weight.
TRANSPOSED_WEIGHT_IDS = {("general_score", "W_a"): "luong.general_transposed"}
#: The projection whose absence has its own id.
OUTPUT_PROJECTION = ("multi_head_attention", "W_o")
#: Arguments the student may take from the wrong sequence: (function, used, instead of) -> suffix.
CONFUSED_ARGUMENTS = {("multi_head_attention", "X_q", "X_kv"): "keys_from_queries"}


def _concat_blocks_swapped(arguments: dict) -> dict:
    """W_a whose first d_h columns are applied to h_j and the rest to s: the order [h_j; s]."""
    d_h = np.shape(arguments["H"])[-1]
    return {"W_a": np.roll(np.asarray(arguments["W_a"]), -d_h, axis=1)}


#: Argument rewrites that stand for a function's own mistakes: function -> ((bug suffix, rewrite), ...).
#: Unlike a mutant, a rewrite also works on top of an error carried forward.
REWRITES = {"concat_score": (("concat_order", _concat_blocks_swapped),)}


def _mask(case: Case) -> np.ndarray | None:
    mask = case.arguments.get(MASK)
    return None if mask is None else np.asarray(mask).astype(bool)


def mask_probes(case: Case) -> list[Finding]:
    """The mask inverted, ignored, transposed, or applied to the weights after the softmax."""
    mask = _mask(case)
    if mask is None:
        return []
    unmasked = case.reference_with(mask=None)
    candidates = {"mask_inverted": case.reference_with(mask=~mask), "mask_ignored": unmasked}
    if mask.ndim >= 2 and mask.shape[-1] == mask.shape[-2]:
        candidates["mask_transposed"] = case.reference_with(mask=np.swapaxes(mask, -1, -2))
    candidates.update(_masked_values(case, mask))
    explaining = [suffix for suffix, candidate in candidates.items() if case.explains(candidate)]
    if len(explaining) > 1:
        explaining = []  # two mask mistakes give the same result on these inputs: another test tells them apart
    findings = [finding for suffix in explaining for finding in own(case.function, suffix)]
    return findings + _masked_after_softmax(case, mask, unmasked)


def _masked_values(case: Case, mask: np.ndarray) -> dict:
    """The reference without the mask, on an argument whose rows are the masked positions zeroed where the mask is
    False (``H * mask[..., None]``): the mask applied to the values, not to the scores."""
    found = {}
    for name, value in case.arguments.items():
        if name == MASK or not isinstance(value, np.ndarray) or value.dtype.kind != "f" or value.ndim < 2:
            continue
        if value.shape[-2] != mask.shape[-1] or name == "scores":
            continue
        try:
            zeroed = value * mask[..., None]
        except ValueError:
            continue
        if zeroed.shape == value.shape:
            found["mask_on_values"] = case.reference_with(mask=None, **{name: zeroed.astype(value.dtype)})
            break
    return found


def mask_arithmetic(case: Case) -> list[Finding]:
    """NaN weights where the reference's are finite, with a mask and ordinary scores: 0 * -inf."""
    mask = _mask(case)
    located = distribution_axis(case.function, case.args, case.kwargs)
    if mask is None or located is None:
        return []
    weights, expected = case.student_part(located[0]), case.reference.arrays[located[0]]
    if weights is None or weights.shape != expected.shape or weights.dtype.kind != "f":
        return []
    with np.errstate(all="ignore"):
        broken = np.isnan(weights) & np.isfinite(expected)
    unmasked = case.reference_with(mask=None)
    finite_without_mask = isinstance(unmasked, Parts) and bool(np.isfinite(unmasked.arrays[located[0]]).all())
    if not (broken.any() and finite_without_mask):
        return []
    return _inf_scores_broken(case, mask) or own(case.function, "mask_nan")


def _inf_scores_broken(case: Case, mask: np.ndarray) -> list[Finding]:
    """When the scores are an argument: the masked scores given as -inf and no mask. NaN there too means it is not the
    mask's arithmetic but how the function treats -inf scores (a shift by the mean or the minimum: -inf - -inf)."""
    scores = case.arguments.get("scores")
    if not isinstance(scores, np.ndarray) or scores.dtype.kind != "f":
        return []
    try:
        filled = np.where(np.broadcast_to(mask, scores.shape), scores, -np.inf).astype(scores.dtype)
    except ValueError:
        return []
    answer = case.student_with(scores=filled, mask=None)
    if answer is None or not any(np.isnan(part).any() for part in answer.arrays if part.dtype.kind == "f"):
        return []
    return own(case.function, "inf_scores_nan")


def mask_without_head_axis(case: Case) -> list[Finding]:
    """Multi-head attention that is right once the mask is given its head axis by the caller."""
    mask = _mask(case)
    if case.function != "multi_head_attention" or mask is None or mask.ndim < 2:
        return []
    answer = case.student_with(mask=mask[..., None, :, :])  # (..., 1, n_q, n_kv)
    if answer is None or not case.matches_reference(answer):
        return []
    # a 2-D mask right once it is (1, n_q, n_kv): not a batch axis lined up with the heads, a 2-D mask read otherwise
    return own(case.function, "mask_head_axis" if mask.ndim >= 3 else "mask_2d_misread")


def _masked_after_softmax(case: Case, mask: np.ndarray, unmasked: Parts | Raised) -> list[Finding]:
    """The weights of the unmasked softmax, zeroed where masked, without renormalising."""
    located = distribution_axis(case.function, case.args, case.kwargs)
    if located is None or not isinstance(unmasked, Parts):
        return []
    part = located[0]
    weights = unmasked.arrays[part]
    if case.function == "multi_head_attention":
        mask = mask.reshape((1,) * max(0, 2 - mask.ndim) + mask.shape)[..., None, :, :]  # a head axis
    try:
        zeroed = weights * mask
    except ValueError:
        return []
    return own(case.function, "mask_after_softmax") if case.part_matches(part, zeroed) and not case.part_matches(part, weights) else []


def _weights(case: Case) -> dict[str, np.ndarray]:
    return {name: np.asarray(value) for name, value in case.arguments.items()
            if name.startswith(WEIGHT_PREFIXES) and np.ndim(value) == 2}


def _transposed(case: Case, name: str) -> list[Finding]:
    specific = TRANSPOSED_WEIGHT_IDS.get((case.function, name))
    if specific is not None:
        return [Finding(specific, {})]
    return own(case.function, "weight_transposed", weight=name)


def _all_transposed(case: Case, weights: dict[str, np.ndarray]) -> list[Finding]:
    """Several square weights used transposed at once (every one, or every one but the output projection)."""
    square = {name: W for name, W in weights.items() if W.shape[0] == W.shape[1]}
    groups = [square, {name: W for name, W in square.items() if (case.function, name) != OUTPUT_PROJECTION}]
    for group in groups:
        if len(group) > 1 and case.explains(case.reference_with(**{name: W.T for name, W in group.items()})):
            return _transposed(case, ", ".join(group))
    return []


def weight_probes(case: Case) -> list[Finding]:
    """A weight used transposed, left out (the identity), or used in place of another."""
    weights = _weights(case)
    findings = _all_transposed(case, weights)
    for name, W in weights.items():
        square = W.shape[0] == W.shape[1]
        if square and case.explains(case.reference_with(**{name: W.T})):
            findings += _transposed(case, name)
        if square and case.explains(case.reference_with(**{name: np.eye(len(W), dtype=W.dtype)})):
            findings += [Finding("mha.missing_output_projection")] if (case.function, name) == OUTPUT_PROJECTION \
                else own(case.function, "missing_projection", weight=name)
    for a, b in itertools.combinations(weights, 2):
        if weights[a].shape == weights[b].shape and case.explains(case.reference_with(**{a: weights[b], b: weights[a]})):
            findings += own(case.function, "swapped_weights") or own(case.function, "weights_swapped", used=b, expected=a)
    for a, b in itertools.permutations(weights, 2):
        if weights[a].shape == weights[b].shape and case.explains(case.reference_with(**{b: weights[a]})):
            findings += own(case.function, "weights_swapped", used=a, expected=b)
    return findings


def expects_transposed_weights(case: Case) -> list[Finding]:
    """The student's function fails on the documented weights but is right on transposed ones."""
    if not isinstance(case.student, Raised):
        return []
    for name, W in _weights(case).items():
        if W.shape[0] != W.shape[1]:
            answer = case.student_with(**{name: W.T})
            if answer is not None and case.matches_reference(answer):
                return _transposed(case, name)
    return []


def vector_probes(case: Case) -> list[Finding]:
    """A read-out vector ignored: the features summed instead of dotted with it."""
    findings = []
    for name in VECTOR_WEIGHTS:
        value = case.arguments.get(name)
        if value is not None and case.explains(case.reference_with(**{name: np.ones_like(np.asarray(value))})):
            findings += own(case.function, "ignores_v_a")
    return findings


def confused_arguments(case: Case) -> list[Finding]:
    """An input taken from the wrong sequence (keys and values from the queries' sequence)."""
    findings = []
    for (function, used, instead), suffix in CONFUSED_ARGUMENTS.items():
        if function == case.function and case.explains(case.reference_with(**{instead: case.arguments[used]})):
            findings += own(case.function, suffix)
    return findings


def rewritten_arguments(case: Case) -> list[Finding]:
    """The reference on arguments rewritten the way a known mistake of this function rewrites them."""
    findings = []
    for suffix, rewrite in REWRITES.get(case.function, ()):
        if case.explains(case.reference_with(**rewrite(case.arguments))):
            findings += own(case.function, suffix)
    return findings


def masked_scores_matter(case: Case) -> list[Finding]:
    """When the scores are an argument: right once the masked scores are set to 0, which the reference ignores. The
    function lets scores it should ignore change its result (a maximum taken before masking, say)."""
    mask, scores = _mask(case), case.arguments.get("scores")
    if mask is None or not isinstance(scores, np.ndarray) or scores.dtype.kind != "f":
        return []
    try:
        blocked = ~np.broadcast_to(mask, scores.shape)
    except ValueError:
        return []
    if not blocked.any() or not np.any(scores[blocked]):
        return []
    quiet = np.where(blocked, 0.0, scores).astype(scores.dtype)
    expected = case.reference_with(scores=quiet)
    if not case.matches_reference(expected):
        return []  # the reference itself changed: those scores are not ignored here
    answer = case.student_with(scores=quiet)
    return own(case.function, "masked_scores_used") if case.matches_reference(answer) else []


def integer_mask(case: Case) -> list[Finding]:
    """A 0/1 integer mask, where the student is right once the same mask is boolean (``~mask`` on integers is -1 or
    -2, both true; ``mask == True`` and ``is`` tests fail alike)."""
    mask = case.arguments.get(MASK)
    if not isinstance(mask, np.ndarray) or mask.dtype.kind not in "iu":
        return []
    answer = case.student_with(mask=mask.astype(bool))
    return [Finding("call.integer_mask", {"dtype": str(mask.dtype)})] if case.matches_reference(answer) else []


def integer_inputs(case: Case) -> list[Finding]:
    """Integer arrays (other than the mask), where the student is right once the same values are floats: the function
    computes in the input's integer type (an in-place ``/=`` that raises, an output array that truncates). A result
    with the right values in integers is :func:`.outputs.not_float`'s to name."""
    integers = {name: value for name, value in case.arguments.items()
                if name != MASK and isinstance(value, np.ndarray) and value.dtype.kind in "iu"}
    if not integers:
        return []
    if _right_values_in_integers(case):
        return []
    answer = case.student_with(**{name: value.astype(np.float64) for name, value in integers.items()})
    if not case.matches_reference(answer):
        return []
    return [Finding("call.integer_input", {"arguments": ", ".join(integers)})]


def _right_values_in_integers(case: Case) -> bool:
    """Whether the student returned integer arrays that hold the reference's values."""
    if not isinstance(case.student, Parts) or len(case.student.arrays) != len(case.reference.arrays):
        return False
    pairs = list(zip(case.student.arrays, case.reference.arrays))
    return any(got.dtype.kind in "iub" for got, _ in pairs) and all(
        got.shape == want.shape and np.allclose(got.astype(np.float64), want, rtol=case.tol.rtol, atol=case.tol.atol)
        for got, want in pairs)
