"""Probes that read the pattern of a result: a mask's triangle, an arrangement of heads, a variance.

These look only at what the student returned, compared with what each kind of mistake
would give: the other triangle of a causal mask or its complement, the right numbers in a
wrong arrangement, a standard deviation where a variance belongs, or variances of the
right size that were not drawn the documented way.
"""

from __future__ import annotations

import math

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.probes.arrangement import arrangement
from autograder.diagnose.probes.estimator import moment_estimator, other_draws
from autograder.diagnose.probes.finding import Finding, own
from autograder.judge.compare import Parts
from autograder.i18n import msg

#: Standard errors within which a variance counts as "the right size".
STANDARD_ERRORS = 5


def causal_mask_pattern(case: Case) -> list[Finding]:
    """The other triangle, the diagonal left out, the complement, or the right pattern in another dtype."""
    if case.function != "causal_mask" or not isinstance(case.student, Parts) or len(case.student.arrays) != 1:
        return []
    expected, actual = case.reference.arrays[0], case.student.arrays[0]
    if actual.shape != expected.shape or actual.dtype.kind not in "biuf":
        return []
    n = expected.shape[-1]
    if n < 2:
        return []  # one entry: the diagonal left out, the complement and any shift all look alike
    with np.errstate(all="ignore"):
        allowed = np.isfinite(actual) & (actual != 0) if actual.dtype.kind == "f" and np.isinf(actual).any() else actual != 0
        additive = actual.dtype.kind == "f" and np.array_equal(np.isfinite(actual) & (actual == 0), expected)
    patterns = (
        (np.triu(np.ones((n, n), dtype=bool)), "upper_triangular"),
        (np.tril(np.ones((n, n), dtype=bool), k=-1), "excludes_diagonal"),
        (~expected, "inverted"),
    )
    for pattern, suffix in patterns:
        if np.array_equal(allowed, pattern) and not np.array_equal(pattern, expected):
            return own(case.function, suffix)
    for offset in (k for k in range(-n + 1, n) if k not in (0, -1)):  # k = -1 leaves out the diagonal (above)
        if np.array_equal(allowed, np.tril(np.ones((n, n), dtype=bool), k=offset)):
            return own(case.function, "shifted_diagonal", boundary=f"j <= i {'+' if offset > 0 else '-'} {abs(offset)}")
    if (np.array_equal(allowed, expected) or additive) and actual.dtype.kind != "b":
        return own(case.function, "not_boolean")
    return []


def heads_arrangement(case: Case) -> list[Finding]:
    """split_heads or merge_heads with the right numbers in a wrong arrangement (a fallback)."""
    if case.function not in ("split_heads", "merge_heads") or not isinstance(case.student, Parts):
        return []
    expected, actual = case.reference.arrays[0], case.student.arrays[0]
    if actual.size != expected.size or actual.dtype.kind != "f":
        return []
    if not np.allclose(np.sort(actual, axis=None), np.sort(expected, axis=None), rtol=case.tol.rtol, atol=case.tol.atol):
        return []
    stepped = arrangement(case)
    if stepped is not None:
        return own(case.function, "axes_order", shapes=stepped)
    shapes = msg(" (shape {got} instead of {expected})", got=str(actual.shape), expected=str(expected.shape)) \
        if actual.shape != expected.shape else ""
    return own(case.function, "axes_order", shapes=shapes)


def _sample_sizes(case: Case) -> tuple[int, int]:
    return int(case.arguments["d_k"]), int(case.arguments["n_samples"])


def variance_as_std(case: Case) -> list[Finding]:
    """Standard deviations where variances are documented."""
    if case.function != "dot_product_variance" or not isinstance(case.student, Parts):
        return []
    roots = Parts(True, tuple(np.sqrt(part) for part in case.reference.arrays))
    return own(case.function, "std_not_var") if case.explains(roots) else []


#: A relative standard error above this (a handful of samples) makes "the right size" say nothing.
MEANINGFUL_ERROR = 0.5


def variance_of_other_draws(case: Case) -> list[Finding]:
    """Variances of the right size (d_k, then 1) that are not the documented draws' (a fallback)."""
    if case.function != "dot_product_variance" or not isinstance(case.student, Parts):
        return []
    d_k, n = _sample_sizes(case)
    values = [float(np.asarray(part).ravel()[0]) for part in case.student.arrays if np.size(part) == 1]
    if len(values) != 2 or n < 2:
        return []
    allowed = STANDARD_ERRORS * math.sqrt((2 + 6 / d_k) / n)  # relative standard error of the variance
    right_size = abs(values[0] / d_k - 1) <= allowed and abs(values[1] - 1) <= allowed
    same_draws = any(case.part_matches(i, want) for i, want in enumerate(case.reference.arrays))
    if right_size and allowed < MEANINGFUL_ERROR and not same_draws:  # one variance right: the draws are the documented ones
        return moment_estimator(case) or own(case.function, "draw_order")
    drawn_otherwise = other_draws(case)
    if drawn_otherwise:
        return drawn_otherwise
    scaled_right = values[1] > 0 and math.isclose(values[0] / values[1], d_k, rel_tol=1e-6)
    if scaled_right and d_k > 1:  # the scaling is right, the dot products' variance is not: other draws than N(0, 1)
        return own(case.function, "raw_variance_off", ratio=f"{values[0] / d_k:.3g}")
    return []


#: What the scaled dot products may have been divided by instead of sqrt(d_k), as a function of d_k: Python's
#: precedence (``d_k ** 1/2`` is d_k / 2), a doubled or halved size, a square.
DIVISORS = (("d_k / 2", lambda d: d / 2), ("2·d_k", lambda d: 2 * d), ("d_k²", lambda d: d * d),
            ("2·sqrt(d_k)", lambda d: 2 * math.sqrt(d)), ("sqrt(d_k) / 2", lambda d: math.sqrt(d) / 2),
            ("sqrt(2·d_k)", lambda d: math.sqrt(2 * d)), ("sqrt(d_k / 2)", lambda d: math.sqrt(d / 2)))


def scaled_divisor(case: Case) -> list[Finding]:
    """var_raw right (the documented draws) and var_scaled the variance of the dot products divided by another
    expression of d_k than sqrt(d_k): which one, read from var_raw / var_scaled."""
    if not {"d_k", "n_samples"} <= set(case.arguments) or not isinstance(case.student, Parts):
        return []
    if len(case.student.arrays) != 2 or not case.part_matches(0, case.reference.arrays[0]):
        return []
    d_k = int(case.arguments["d_k"])
    raw, scaled = (float(np.asarray(part).ravel()[0]) for part in case.student.arrays)
    if not (raw > 0 and scaled > 0):
        return []
    divisor = math.sqrt(raw / scaled)
    matching = [name for name, form in DIVISORS if math.isclose(divisor, form(d_k), rel_tol=1e-6)]
    if not matching or math.isclose(divisor, math.sqrt(d_k), rel_tol=1e-6):
        return []  # where two expressions coincide (d_k = 2), the first is named: the call with a larger d_k tells
    return own(case.function, "scaled_by_other", divisor=matching[0], value=f"{divisor:.4g}", d_k=str(d_k))
