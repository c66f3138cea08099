"""Probes of backward passes: what the student's gradient does, measured against the reference's formula.

The softmax backward pass is ``dS = A * (dA - c * P)`` with ``P`` the sum of ``dA * A`` along
the softmax's axis and ``c = 1``. Fitting ``c`` to the student's result tells the bug by its
behaviour: ``c = 0`` (the outer product left out), ``c = 1/n`` (a mean for the sum); so do a
sum over the whole array, or the Jacobian's diagonal alone. The attention backward pass is
judged part by part through the relations of :mod:`autograder.diagnose.relate`: a gradient that
is the right one times ``1/sqrt(d_k)`` divided twice, one returned transposed.
"""

from __future__ import annotations

import inspect
import math

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.probes.finding import Finding, own
from autograder.diagnose.relate import _close, _factor, _finite_pair, followed_size
from autograder.diagnose.vocabulary import call_sizes
from autograder.judge.compare import Parts, reference_function

#: The size whose square root the attention's scores are divided by.
SCALED_SIZE = "d_k"
#: Relative tolerance when a fitted coefficient is matched with a candidate.
COEFFICIENT_RTOL = 1e-3


def _softmax_backward_inputs(case: Case):
    """(A, dA, axis, the student's dS) as float64, or None when the call does not allow a fit."""
    values = list(case.arguments.values())
    if len(values) < 3 or not isinstance(case.student, Parts) or len(case.student.arrays) != 1:
        return None
    A, dA = (np.asarray(v, dtype=np.float64) for v in values[:2])
    dS = case.student.arrays[0]
    if dS.shape != A.shape or A.shape != dA.shape or dS.dtype.kind != "f" or not isinstance(values[2], (int, np.integer)):
        return None
    return A, dA, int(values[2]), dS.astype(np.float64)


def projection_coefficient(A, dA, axis, dS) -> float | None:
    """The ``c`` with ``dS == A * (dA - c * sum(dA * A, axis))``, when one fits."""
    projection = A * np.sum(dA * A, axis=axis, keepdims=True)
    residual = A * dA - dS
    denominator = float(np.sum(projection * projection))
    if denominator == 0.0:
        return None
    c = float(np.sum(residual * projection) / denominator)
    return c if np.isfinite(c) and _close(residual, c * projection) else None


def softmax_backward_behaviour(case: Case) -> list[Finding]:
    """softmax_backward whose projection term is missing, averaged, summed over everything, or only diagonal."""
    if case.function != "softmax_backward":
        return []
    inputs = _softmax_backward_inputs(case)
    if inputs is None:
        return []
    A, dA, axis, dS = inputs
    with np.errstate(all="ignore"):
        if _close(dS, A * (1 - A) * dA) and not _close(dS, A * dA):
            return own(case.function, "diagonal_only")
        whole = A * (dA - np.sum(dA * A))
        if _close(dS, whole):
            return own(case.function, "sum_over_all")
        c = projection_coefficient(A, dA, axis, dS)
        if c is None:
            return _other_projection(A, dA, axis, dS, case.function)
    if math.isclose(c, 1.0, rel_tol=COEFFICIENT_RTOL):
        return []
    if abs(c) < COEFFICIENT_RTOL:
        return own(case.function, "no_outer_product")
    if math.isclose(c, 1.0 / A.shape[axis], rel_tol=COEFFICIENT_RTOL):
        return own(case.function, "mean_not_sum")
    return []


#: Reductions along the softmax's axis a wrong projection term may be, by how the hint names them.
PROJECTIONS = {
    "sum(dA)": lambda A, dA, axis: np.sum(dA, axis=axis, keepdims=True),
    "mean(dA)": lambda A, dA, axis: np.mean(dA, axis=axis, keepdims=True),
    "mean(dA * A)": lambda A, dA, axis: np.mean(dA * A, axis=axis, keepdims=True),
    "sum(dA * A * A)": lambda A, dA, axis: np.sum(dA * A * A, axis=axis, keepdims=True),
    "sum(A)": lambda A, dA, axis: np.sum(A, axis=axis, keepdims=True),
    "max(dA)": lambda A, dA, axis: np.max(dA, axis=axis, keepdims=True),
}


def _other_projection(A, dA, axis, dS, function: str) -> list[Finding]:
    """``dS == A * (dA - t)`` for a term ``t`` constant along the axis that is another reduction than sum(dA * A)."""
    weighted = np.abs(A) > 1e-12
    if not weighted.any():
        return []
    term = np.where(weighted, dA - dS / np.where(weighted, A, 1.0), np.nan)  # (..., n, ...): t wherever A is not 0
    for name, reduce in PROJECTIONS.items():
        candidate = np.broadcast_to(reduce(A, dA, axis), term.shape)
        if _close(np.where(weighted, term, 0.0), np.where(weighted, candidate, 0.0)) and _close(dS, A * (dA - candidate)):
            return own(function, "wrong_projection", term=name)
    return []


def _gradient_parts(case: Case):
    """(name, index, student part, expected part) for each wrong part of a tuple result."""
    if not isinstance(case.student, Parts) or len(case.student.arrays) != len(case.reference.arrays):
        return []
    names = case.contract.output_names
    return [(names[i] if i < len(names) else str(i), i, s, e)
            for i, (s, e) in enumerate(zip(case.student.arrays, case.reference.arrays)) if not case.part_matches(i, e)]


def attention_backward_behaviour(case: Case) -> list[Finding]:
    """A gradient divided by sqrt(d_k) twice, or returned transposed."""
    if case.function != "scaled_dot_product_attention_backward":
        return []
    sizes = call_sizes(case.function, case.arguments)
    twice, inverted, factors = [], [], {}
    for name, index, student, expected in _gradient_parts(case):
        if student.ndim == expected.ndim >= 2 and student.shape == np.swapaxes(expected, -1, -2).shape \
                and student.shape != expected.shape and _close(student.astype(np.float64), np.swapaxes(expected, -1, -2)):
            return own(case.function, "gradient_transposed", gradient=name)
        pair = _finite_pair(student, expected)
        factor = _factor(*pair) if pair is not None else None
        followed = followed_size(case, index, factor, sizes) if factor is not None else None
        if followed == "1/sqrt(d_k)":
            twice.append(name)
        elif followed == SCALED_SIZE:  # times sqrt(d_k) where 1/sqrt(d_k) belongs: the factor d_k apart
            inverted.append(name)
        factors[name] = factor
    if twice or inverted:
        return own(case.function, "scaled_twice" if twice else "scale_inverted", gradients=" and ".join(twice or inverted))
    return _scaled_by_another_size(case, factors, sizes) or _step_skipped(case)


def _step_skipped(case: Case) -> list[Finding]:
    """Every wrong gradient what the reference gives with one graded step it calls left out, one of that step's
    inputs passed on as its output (dS taken as dA: the softmax backward step skipped)."""
    wrong = _gradient_parts(case)
    for step in case.contract.calls if wrong else ():
        for position, argument in enumerate(list(inspect.signature(reference_function(step)).parameters)[:2]):
            def passed_on(*args, position=position, **_kwargs):
                return np.asarray(args[position], dtype=float)

            skipped = case.reference_with(dependencies={step: passed_on})
            if isinstance(skipped, Parts) and len(skipped.arrays) == len(case.reference.arrays) \
                    and all(case.part_matches(index, skipped.arrays[index]) for _, index, _, _ in wrong):
                return [Finding("call.step_skipped", {"gradients": " and ".join(name for name, *_ in wrong),
                                                      "step": step, "argument": argument})]
    return []


def _scaled_by_another_size(case: Case, factors: dict, sizes: dict[str, int]) -> list[Finding]:
    """Every wrong gradient the right one times sqrt(d_k / X) for one other size X: the scale 1/sqrt(X) was used."""
    d_k = sizes.get(SCALED_SIZE)
    if not factors or d_k is None or any(f is None for f in factors.values()):
        return []
    fits = [name for name, size in sizes.items() if name != SCALED_SIZE and size != d_k
            and all(math.isclose(f, math.sqrt(d_k / size), rel_tol=COEFFICIENT_RTOL) for f in factors.values())]
    if len(fits) != 1:
        return []
    return own(case.function, "scale_by_wrong_dim", gradients=" and ".join(factors), dimension=fits[0])


def experiment_aggregation(case: Case) -> list[Finding]:
    """The gradient-norm experiment right on one sample, wrong on several: the samples are combined wrongly."""
    if case.function != "softmax_gradient_norm" or not isinstance(case.student, Parts):
        return []
    samples = case.arguments.get("n_samples")
    if not isinstance(samples, (int, np.integer)) or samples < 2:
        return []
    expected = case.reference_with(n_samples=1)
    if not isinstance(expected, Parts) or not np.any(expected.arrays[0]):
        return []  # nothing to tell: a single sample's norm is 0 here
    answer = case.student_with(n_samples=1)
    return own(case.function, "aggregation") if answer is not None and case.matches_reference_of(answer, expected) else []
