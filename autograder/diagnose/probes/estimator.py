"""Which estimator a sampling experiment applied to the documented draws, fitted from its answers.

A function that measures a variance from draws of a given generator returns numbers whose size is right whatever
estimator it applies. When the draws are the documented ones, the dot products ``x`` they give are known, and every
moment-based estimator is ``a·mean(x²) + b·mean(x)² + c·mean(x)``: the sample variance is (1, -1, 0), the unbiased
one n/(n-1) times that, the mean of squares (1, 0, 0), a forgotten square on the mean (1, 0, -1). Fitting ``a, b, c``
to the student's answers on four seeds (each gives the raw and the scaled variance) tells the
estimator when one fits exactly, and says the draws were right; no fit leaves the draws in doubt.
"""

from __future__ import annotations

import math

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.probes.finding import Finding, own
from autograder.i18n import N_, Message
from autograder.inputs import RngSeed
from autograder.judge.compare import Parts

#: The generator argument and the two sizes of the experiment, as the course's docstring names them.
GENERATOR, DIMENSION, SAMPLES = "rng", "d_k", "n_samples"
#: Relative residual under which the fitted estimator explains the answers.
FIT_RTOL = 1e-8
#: Seeds added to the call's for more equations: a variance-like estimator answers var_raw = d_k · var_scaled, so each
#: seed adds one independent equation in (a, b); three more seeds over-determine them.
OTHER_SEEDS = (7919, 104729, 1299709)
#: Largest fitted coefficient read as an estimator (a fit that needs more is a coincidence of too few equations).
LARGEST_COEFFICIENT = 10.0


def _dots(seed: RngSeed, d_k: int, n: int) -> np.ndarray:
    """The documented draws' dot products: q first, then k, each (n_samples, d_k) standard normal."""
    rng = seed.generator()
    q = rng.standard_normal((n, d_k))
    k = rng.standard_normal((n, d_k))
    return np.sum(q * k, axis=-1)  # (n_samples,)


def _moments(x: np.ndarray) -> list[float]:
    return [float(np.mean(x ** 2)), float(np.mean(x)) ** 2, float(np.mean(x))]


def _answers(answer) -> list[float] | None:
    if not isinstance(answer, Parts) or len(answer.arrays) != 2 or any(np.size(a) != 1 for a in answer.arrays):
        return None
    values = [float(np.asarray(a).ravel()[0]) for a in answer.arrays]
    return values if all(math.isfinite(v) for v in values) else None


def _equations(seed: RngSeed, d_k: int, n: int) -> list[list[float]]:
    x = _dots(seed, d_k, n)
    return [_moments(x), _moments(x / math.sqrt(d_k))]


def fitted_estimator(case: Case) -> tuple[float, float, float] | None:
    """``(a, b, c)`` of the estimator that gives the student's answers from the documented draws, or None."""
    seed, d_k, n = (case.arguments.get(name) for name in (GENERATOR, DIMENSION, SAMPLES))
    first = _answers(case.student)
    if not isinstance(seed, RngSeed) or first is None or not isinstance(d_k, (int, np.integer)) or not isinstance(n, (int, np.integer)):
        return None
    rows, values = _equations(seed, int(d_k), int(n)), list(first)
    for offset in OTHER_SEEDS:
        other = RngSeed(seed.seed + offset)
        answers = _answers(case.student_with(**{GENERATOR: other}))
        if answers is None:
            return None
        rows += _equations(other, int(d_k), int(n))
        values += answers
    matrix, target = np.array(rows), np.array(values)  # (8, 3), (8,)
    coefficients, *_ = np.linalg.lstsq(matrix, target, rcond=None)
    residual = np.abs(matrix @ coefficients - target)
    if not np.all(residual <= FIT_RTOL * max(1.0, float(np.max(np.abs(target))))):
        return None
    if np.any(np.abs(coefficients) > LARGEST_COEFFICIENT):
        return None
    return tuple(float(c) for c in coefficients)


def _term(coefficient: float, moment: str) -> str:
    if math.isclose(coefficient, round(coefficient), abs_tol=1e-6):
        coefficient = round(coefficient)
    number = "" if coefficient in (1, -1) else f"{abs(coefficient):.4g}·"
    return f"{'-' if coefficient < 0 else '+'} {number}{moment}"


def formula(coefficients: tuple[float, float, float], n: int) -> str:
    """``mean(x²) - mean(x)``: the fitted estimator, its zero terms left out; a multiple of the variance as such."""
    a, b, c = coefficients
    if abs(c) <= 1e-6 and math.isclose(a, -b, rel_tol=1e-6) and abs(a) > 1e-6:
        factor = "n/(n-1)" if math.isclose(a, n / (n - 1), rel_tol=1e-6) else f"{a:.4g}"
        return f"{factor}·(mean(x²) - mean(x)²)"
    terms = [_term(c, m) for c, m in zip(coefficients, ("mean(x²)", "mean(x)²", "mean(x)")) if abs(c) > 1e-6]
    text = " ".join(terms) or "0"
    return text[2:] if text.startswith("+ ") else text


def moment_estimator(case: Case) -> list[Finding]:
    """The documented draws with another estimator than the sample variance: named with its fitted formula."""
    coefficients = fitted_estimator(case)
    if coefficients is None or np.allclose(coefficients, (1.0, -1.0, 0.0), atol=1e-6):
        return []
    return own(case.function, "estimator", formula=formula(coefficients, int(case.arguments[SAMPLES])))


def _same_vector(rng, n: int, d_k: int):
    q = rng.standard_normal((n, d_k))
    return q, q


#: Other ways to draw the vectors from the generator it is given, by how the hint says them.
OTHER_DRAWS = (
    (N_("one draw used for both q and k (q = k = rng.standard_normal(...))"), _same_vector),
    (N_("uniform draws on [0, 1) (rng.random) instead of standard normal ones"),
     lambda rng, n, d_k: (rng.random((n, d_k)), rng.random((n, d_k)))),
    (N_("one query vector for every sample (q of shape (d_k,))"),
     lambda rng, n, d_k: (rng.standard_normal(d_k), rng.standard_normal((n, d_k)))),
)
#: Relative tolerance when another scheme's variances are matched with the student's.
DRAWS_RTOL = 1e-6


def other_draws(case: Case) -> list[Finding]:
    """The variances (either estimator the docstring accepts) of vectors drawn another way from the same generator."""
    seed, d_k, n = (case.arguments.get(name) for name in (GENERATOR, DIMENSION, SAMPLES))
    answers = _answers(case.student)
    if not isinstance(seed, RngSeed) or answers is None or not isinstance(d_k, (int, np.integer)) or not isinstance(n, (int, np.integer)) or n < 2:
        return []
    for said, draw in OTHER_DRAWS:
        q, k = draw(seed.generator(), int(n), int(d_k))
        x = np.sum(q * k, axis=-1)
        for ddof in (0, 1):
            expected = (float(np.var(x, ddof=ddof)), float(np.var(x / math.sqrt(d_k), ddof=ddof)))
            if all(math.isclose(a, e, rel_tol=DRAWS_RTOL) for a, e in zip(answers, expected)):
                return own(case.function, "other_draws", draws=Message(said, {}))
    return []
