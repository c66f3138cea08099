"""Probes of how a function turns scores into weights: its own softmax, or the one inside it.

A function that calls ``softmax`` (attention, the context vector, multi-head attention)
takes it as a keyword-only argument (see :mod:`attn_reference.contract`). So the probes
can ask the reference "what if the softmax inside were normalised over another axis, or
never divided by the sum, or fed zeros for masked scores?" and compare that with the
student's result, without a wrong version of each function written by hand. The same
variants applied to ``softmax`` itself diagnose it directly.

Fitting goes further: when the student's weights are a softmax of the reference's scores
times some factor, the factor is measured, so a scale by any wrong number is named with
that number (the diagnosis of attention scales lives in :mod:`.scale`).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from attn_reference._validate import as_float_array
from attn_reference.softmax import softmax as reference_softmax
from autograder.diagnose.case import Case
from autograder.diagnose.probes.finding import Finding, own
from autograder.judge.compare import Parts, Raised, run
from autograder.judge.messages import distribution_axis, part_name
from autograder.diagnose.phrases import axis_of

#: Weights below this are treated as zero when fitting (their logarithm says nothing).
SMALLEST_FITTED_WEIGHT = 1e-12
#: Relative distance from 1 under which a fitted factor counts as 1.
UNIT_FACTOR_RTOL = 1e-3
#: Smallest factor of the scores named as a scale: below it the fitted weights are uniform whatever the scores were.
SMALLEST_NAMED_FACTOR = 1e-3
#: Largest exponent ``exp`` takes without overflowing in float32.
FLOAT32_EXP_LIMIT = 88.0


def _scores(x) -> np.ndarray:
    return as_float_array(x, "x", min_ndim=1)


def along(axis: int) -> Callable:
    """A softmax that normalises along ``axis`` whatever axis it is asked for."""

    def softmax_along(x, **_asked):
        return reference_softmax(x, axis=axis)

    return softmax_along


def unnormalised(x, axis: int = -1) -> np.ndarray:
    """``exp(x - max)``: the shift without the division."""
    scores = _scores(x)
    with np.errstate(all="ignore"):
        return np.exp(scores - np.max(scores, axis=axis, keepdims=True))


def unshifted(x, axis: int = -1) -> np.ndarray:
    """``exp(x) / sum(exp(x))``: the division without the shift (overflows on large scores)."""
    with np.errstate(all="ignore"):
        exps = np.exp(_scores(x))
        return exps / np.sum(exps, axis=axis, keepdims=True)


def masked_as_zero(x, axis: int = -1) -> np.ndarray:
    """A softmax that sees masked (``-inf``) scores as 0: what multiplying the scores by the mask gives."""
    scores = _scores(x)
    return reference_softmax(np.where(np.isneginf(scores), 0.0, scores).astype(scores.dtype), axis=axis)


def global_shift(x, axis: int = -1) -> np.ndarray:
    """Shift by the maximum of the whole array, divide by each slice's sum (slices far below it give 0/0)."""
    scores = _scores(x)
    with np.errstate(all="ignore"):
        exps = np.exp(scores - np.max(scores))
        return exps / np.sum(exps, axis=axis, keepdims=True)


def shifted_along(other: int) -> Callable:
    """A softmax that shifts by the maxima along axis ``other`` (np.max(x, axis=other)) and divides by each slice's sum
    along the asked axis: each entry of a slice loses another number, so the weights change."""

    def variant(x, axis: int = -1) -> np.ndarray:
        scores = _scores(x)
        with np.errstate(all="ignore"):
            exps = np.exp(scores - np.max(scores, axis=other, keepdims=True))
            return exps / np.sum(exps, axis=axis, keepdims=True)

    return variant


def _shift_along_other_axis(case: Case, part: int) -> list[Finding]:
    """The weights a shift by the maxima along another axis than the normalised one gives (finite weights only: NaN
    rows coincide with other bugs)."""
    weights, logits = case.student_part(part), _logits(case)
    if weights is None or logits is None or weights.dtype.kind != "f" or not np.isfinite(weights).all():
        return []
    normalised = distribution_axis(case.function, case.args, case.kwargs)[1] % logits.ndim
    for other in range(logits.ndim):
        if other != normalised and case.explains(with_softmax(case, shifted_along(other)), only_part=part):
            return [Finding("call.shift_along_other_axis", {"axis": str(other - logits.ndim)})]
    return []


def global_normalisation(x, axis: int = -1) -> np.ndarray:
    """Shift by the global maximum and divide by the sum of every entry."""
    scores = _scores(x)
    with np.errstate(all="ignore"):
        exps = np.exp(scores - np.max(scores))
        return exps / np.sum(exps)


#: The course function these probes bind themselves to (the rest name it through its contract's calls).
SOFTMAX = "softmax"

#: Two shifts a call may fail to tell apart (nothing overflowed, nothing underflowed differently): neither is named then.
AMBIGUOUS_SHIFTS = ("no_max_shift", "max_not_per_slice")


def with_softmax(case: Case, variant: Callable) -> Parts | Raised | None:
    """The reference's result had it used ``variant`` as its softmax (None when it uses none)."""
    if case.function == SOFTMAX:
        arguments = case.arguments
        return run(variant, (arguments["x"],), {"axis": arguments["axis"]})
    if "softmax" not in case.contract.calls:
        return None
    return case.reference_with(dependencies={"softmax": variant})


def shift_is_ambiguous(case: Case) -> bool:
    """Whether a softmax without the shift and one with a single global shift both give what the student gave: then
    no finder may name either (the call does not tell them apart)."""
    located = _distribution(case)
    if located is None:
        return False
    return all(case.explains(with_softmax(case, variant), only_part=located[0]) for variant in (unshifted, global_shift))


def _distribution(case: Case) -> tuple[int, int] | None:
    return distribution_axis(case.function, case.args, case.kwargs)


def wrong_axis(case: Case) -> list[Finding]:
    """Normalised along another axis than the documented one."""
    located = _distribution(case)
    if located is None:
        return []
    part, axis = located
    expected = case.reference.arrays[part]
    logits = _logits(case)
    if logits is None:
        return []
    logits_ndim = logits.ndim
    normalised = axis % expected.ndim - expected.ndim
    axes = case.contract.outputs[part].axes
    for other in range(-logits_ndim, 0):
        if other != normalised and case.explains(with_softmax(case, along(other)), only_part=part):
            return own(case.function, "wrong_axis", actual=axis_of(axes, other, logits_ndim),
                       expected=axis_of(axes, normalised, expected.ndim))
    other = _normalised_along(case, part, normalised)
    if other is None:
        return []
    return own(case.function, "wrong_axis", actual=axis_of(axes, other, expected.ndim),
               expected=axis_of(axes, normalised, expected.ndim))


def _normalised_along(case: Case, part: int, documented: int) -> int | None:
    """The one other axis the student's weights are a distribution along (non-negative, summing to 1) where the
    expected weights are not and the student's are not along the documented axis: the sum that makes the weights
    runs along that axis, whatever the rest of the computation does (None: no such single axis)."""
    weights, expected = case.student_part(part), case.reference.arrays[part]
    if weights is None or weights.shape != expected.shape or weights.dtype.kind != "f" or not np.isfinite(weights).all():
        return None
    if (weights < 0).any() or _sums_to_one(weights, documented, case):
        return None
    found = [axis for axis in range(-weights.ndim, 0) if axis != documented and weights.shape[axis] > 1
             and _sums_to_one(weights, axis, case) and not _sums_to_one(expected, axis, case)]
    return found[0] if len(found) == 1 else None


def _sums_to_one(weights: np.ndarray, axis: int, case: Case) -> bool:
    total = np.sum(weights.astype(np.float64), axis=axis)
    return bool(np.allclose(total, 1.0, rtol=case.tol.rtol, atol=max(case.tol.atol, 1e-6)))


def variants(case: Case) -> list[Finding]:
    """Unnormalised, unshifted, masked-as-zero, globally normalised or globally shifted weights (the first that fits)."""
    located = _distribution(case)
    if located is None:
        return []
    part = located[0]
    checks = (
        (unnormalised, "not_normalized"),
        (unshifted, "no_max_shift"),
        (global_shift, "max_not_per_slice"),
        (masked_as_zero, "multiplicative_mask"),
        (global_normalisation, "global_normalization"),
    )
    explained = [suffix for variant, suffix in checks if case.explains(with_softmax(case, variant), only_part=part)]
    if not explained:
        return _shift_along_other_axis(case, part)
    if set(AMBIGUOUS_SHIFTS) <= set(explained):
        explained = [suffix for suffix in explained if suffix not in AMBIGUOUS_SHIFTS]  # this call tells neither apart
    return own(case.function, explained[0]) if explained else []  # the first: later ones are less specific


def scores_for_weights(case: Case) -> list[Finding]:
    """Weights that are the scores the softmax should have been given: the softmax left out of the result."""
    located = _distribution(case)
    if located is None or case.function == SOFTMAX:
        return []
    logits, weights = _logits(case), case.student_part(located[0])
    if logits is None or weights is None or weights.shape != logits.shape or not case.part_matches(located[0], logits):
        return []
    return own(case.function, "no_softmax") or [Finding("call.scores_for_weights", {
        "part": part_name(case.function, located[0], case.reference.is_tuple)})]  # the course's name first, if it has one


def _logits(case: Case) -> np.ndarray | None:
    """The scores the reference hands to its softmax (``x`` itself for softmax)."""
    if case.function == SOFTMAX:
        return np.asarray(case.arguments["x"], dtype=np.float64)
    seen: list[np.ndarray] = []

    def recording(x, axis=-1):
        seen.append(np.asarray(x, dtype=np.float64))
        return reference_softmax(x, axis=axis)

    if with_softmax(case, recording) is None or not seen:
        return None
    return seen[-1]


def fitted_factor(logits: np.ndarray, weights: np.ndarray, axis: int, case: Case) -> float | None:
    """The ``t`` for which ``weights == softmax(t * logits)`` along ``axis``, or None when none fits.

    Least squares on the logarithms, centred per row over the entries that carry
    information (finite logits, weights above :data:`SMALLEST_FITTED_WEIGHT`), then a check
    that the fitted softmax really reproduces the weights.
    """
    logits = np.moveaxis(logits, axis, -1)
    weights = np.moveaxis(np.asarray(weights, dtype=np.float64), axis, -1)
    if logits.shape != weights.shape:
        return None
    with np.errstate(all="ignore"):
        useful = np.isfinite(logits) & (weights > SMALLEST_FITTED_WEIGHT)
        count = useful.sum(axis=-1, keepdims=True)
        x = np.where(useful, logits, 0.0)
        y = np.where(useful, np.log(np.where(useful, weights, 1.0)), 0.0)
        x = np.where(useful, x - x.sum(axis=-1, keepdims=True) / np.maximum(count, 1), 0.0)
        y = np.where(useful, y - y.sum(axis=-1, keepdims=True) / np.maximum(count, 1), 0.0)
        spread = float(np.sum(x * x))
    if spread == 0.0 or not np.isfinite(spread):
        return None
    factor = float(np.sum(x * y) / spread)
    with np.errstate(all="ignore"):
        refitted = reference_softmax(factor * logits, axis=-1)
    close = np.isclose(refitted, weights, rtol=case.tol.rtol, atol=max(case.tol.atol, 1e-6))
    return factor if bool(np.all(close | np.isnan(refitted))) and np.isfinite(factor) else None


def measured_factor(case: Case) -> float | None:
    """The factor the student's weights imply on the reference's scores (None when not a softmax of them)."""
    located = _distribution(case)
    logits = _logits(case)
    if located is None or logits is None:
        return None
    part, axis = located
    weights = case.student_part(part)
    if weights is None or weights.shape != case.reference.arrays[part].shape or weights.dtype.kind != "f":
        return None
    return fitted_factor(logits, weights, axis, case)


def scaled_scores(case: Case) -> list[Finding]:
    """softmax and the context vector: weights that are a softmax of the scores times a factor."""
    if case.function not in ("softmax", "attention_context"):
        return []
    factor = measured_factor(case)
    if factor is None or abs(factor - 1.0) <= UNIT_FACTOR_RTOL or abs(factor) < SMALLEST_NAMED_FACTOR:
        return []  # a factor near 0 only says the weights are uniform: flattened scores, not a scale
    return own(case.function, "scaled_scores", factor=f"{factor:.4g}")


#: How much larger than the reference's scores a student's may be (a missing 1/sqrt(d_k), say) and still not overflow.
SCORE_MARGIN = 16.0


def _broken_where_small(logits: np.ndarray, broken: np.ndarray, axis: int) -> bool:
    """Non-finite weights in a slice whose scores are all far too small for exp to overflow or underflow, even a
    few times larger: not what a missing shift breaks."""
    if logits.shape != broken.shape:
        return False
    with np.errstate(all="ignore"):
        magnitude = np.max(np.where(np.isfinite(logits), np.abs(logits), np.inf), axis=axis, keepdims=True)
    return bool(np.any(broken & (magnitude * SCORE_MARGIN < FLOAT32_EXP_LIMIT)))


def overflow(case: Case) -> list[Finding]:
    """Non-finite weights where the reference's are finite, on scores large enough to overflow exp."""
    located = _distribution(case)
    logits = _logits(case)
    if located is None or logits is None:
        return []
    weights = case.student_part(located[0])
    expected = case.reference.arrays[located[0]]
    if weights is None or weights.shape != expected.shape or weights.dtype.kind != "f":
        return []
    finite_logits = logits[np.isfinite(logits)]
    large = finite_logits.size and np.max(np.abs(finite_logits)) > FLOAT32_EXP_LIMIT
    broken = ~np.isfinite(weights) & np.isfinite(expected)
    if case.explains(with_softmax(case, global_shift), only_part=located[0]):
        return []  # one global maximum gives these values too: this call does not tell which shift is missing
    if not (large and broken.any()) or _broken_where_small(logits, broken, located[1]):
        return []
    return own(case.function, "no_max_shift")


def inf_entries_nan(case: Case) -> list[Finding]:
    """NaN in slices that hold -inf, where the reference's weights are finite; right once each -inf is replaced by a
    finite score far below its slice (whose weight is 0 alike): the function mishandles -inf itself (a shift by the
    minimum or the mean, -inf - (-inf)), not the values."""
    x, axis = case.arguments.get("x"), case.arguments.get("axis", -1)
    if not isinstance(x, np.ndarray) or x.dtype.kind != "f" or not np.isneginf(x).any() or not isinstance(case.student, Parts):
        return []
    actual, expected = case.student.arrays[0], case.reference.arrays[0]
    with np.errstate(all="ignore"):
        if actual.shape != expected.shape or not (np.isnan(actual) & np.isfinite(expected)).any():
            return []
        finite = np.where(np.isfinite(x), x, np.nan)
        floor = np.nanmin(finite, axis=axis, keepdims=True) - 30.0  # a weight of e^-30 or less: 0 within the tolerance
    if np.isnan(floor).any():
        return []  # a slice of -inf only: undefined either way
    replaced = np.where(np.isneginf(x), floor, x).astype(x.dtype)
    answer = case.student_with(x=replaced)
    return own(case.function, "inf_nan") if case.matches_reference_of(answer, case.reference_with(x=replaced)) else []


def shifted_beforehand(case: Case) -> list[Finding]:
    """softmax wrong on finite scores but right once each slice's maximum is subtracted from them beforehand: it does
    not compute ``exp(x - max)`` itself (it clips the scores, or shifts them by a constant). A result with inf or NaN
    is left to :func:`overflow`."""
    x, axis = case.arguments.get("x"), case.arguments.get("axis", -1)
    if case.function != SOFTMAX or not isinstance(x, np.ndarray) or x.dtype.kind != "f" or not isinstance(case.student, Parts):
        return []
    if not np.isfinite(x).all() or not all(np.isfinite(part).all() for part in case.student.arrays if part.dtype.kind == "f"):
        return []
    if case.matches_reference(case.student):
        return []
    try:
        shifted = (x - np.max(x, axis=axis, keepdims=True)).astype(x.dtype)
    except (ValueError, TypeError, np.exceptions.AxisError):
        return []
    return own(case.function, "not_shift_invariant") if case.matches_reference(case.student_with(x=shifted)) else []
