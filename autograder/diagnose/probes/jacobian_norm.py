"""Which size of each softmax Jacobian a gradient-norm experiment averaged, from the documented draws.

An experiment given a seeded generator, ``d_k``, ``n_keys`` and ``n_samples`` draws ``q`` (n_samples, d_k) first,
then ``K`` (n_samples, n_keys, d_k), scores each query against its keys (divided by sqrt(d_k) when ``scaled``) and
averages the Frobenius norms of the Jacobians ``diag(a) - a a^T`` of their softmax. With the draws known, the
student's number is compared with other sizes of the same Jacobians: the mean of their rows' norms, their spectral
norm, one norm over the whole stack... One that equals it names what was measured instead.
"""

from __future__ import annotations

import math

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.probes.finding import Finding, own
from autograder.inputs import RngSeed
from autograder.i18n import N_, Message
from autograder.judge.compare import Parts

GENERATOR, DIMENSION, KEYS, SAMPLES, SCALED = "rng", "d_k", "n_keys", "n_samples", "scaled"
#: Relative agreement with a candidate that names it (the draws are the same numbers, so only rounding differs).
MATCH_RTOL = 1e-9


def _jacobians(seed: RngSeed, d_k: int, n_keys: int, n: int, scaled: bool, divisor: float | None = None) -> np.ndarray:
    """(n_samples, n_keys, n_keys): the documented draws' softmax Jacobians (scores divided by ``divisor`` when given)."""
    rng = seed.generator()
    q = rng.standard_normal((n, d_k))
    K = rng.standard_normal((n, n_keys, d_k))
    if divisor is None:
        divisor = math.sqrt(d_k) if scaled else 1.0
    scores = (K @ q[:, :, None])[:, :, 0] / divisor  # (n_samples, n_keys)
    a = np.exp(scores - scores.max(axis=-1, keepdims=True))
    a /= a.sum(axis=-1, keepdims=True)
    return a[:, :, None] * np.eye(n_keys) - a[:, :, None] * a[:, None, :]


def _candidates(J: np.ndarray) -> dict[str, float]:
    """Other sizes of the Jacobians than the mean of their Frobenius norms, by what the hint calls them."""
    n = J.shape[0]
    return {
        N_("the mean of each Jacobian's row norms, np.linalg.norm(J, axis=-1)"): float(np.linalg.norm(J, axis=-1).mean()),
        N_("the sum of each Jacobian's row norms"): float(np.linalg.norm(J, axis=-1).sum(axis=-1).mean()),
        N_("each Jacobian's largest singular value, np.linalg.norm(J, 2)"): float(np.linalg.norm(J, 2, axis=(-2, -1)).mean()),
        N_("the sum of each Jacobian's absolute entries"): float(np.abs(J).sum(axis=(-2, -1)).mean()),
        N_("each Jacobian's largest absolute entry"): float(np.abs(J).max(axis=(-2, -1)).mean()),
        N_("one Frobenius norm of the whole stack of Jacobians, np.linalg.norm(J)"): float(np.sqrt(np.sum(J ** 2))),
        N_("one Frobenius norm of the whole stack divided by n_samples"): float(np.sqrt(np.sum(J ** 2)) / n),
        N_("the Frobenius norm of the mean Jacobian"): float(np.sqrt(np.sum(J.mean(axis=0) ** 2))),
    }


def _experiment(case: Case) -> tuple[RngSeed, int, int, int, float] | None:
    """(seed, d_k, n_keys, n_samples, the student's number) of a gradient-norm call with at least two keys, else None."""
    seed, d_k, n_keys, n = (case.arguments.get(name) for name in (GENERATOR, DIMENSION, KEYS, SAMPLES))
    if not isinstance(seed, RngSeed) or not all(isinstance(v, (int, np.integer)) and v >= 1 for v in (d_k, n_keys, n)):
        return None
    if not isinstance(case.student, Parts) or len(case.student.arrays) != 1 or np.size(case.student.arrays[0]) != 1:
        return None
    value = float(np.asarray(case.student.arrays[0]).ravel()[0])
    return (seed, int(d_k), int(n_keys), int(n), value) if math.isfinite(value) and n_keys >= 2 else None


def other_norm(case: Case) -> list[Finding]:
    """The student's number is another size of the documented draws' Jacobians than their mean Frobenius norm."""
    found = _experiment(case)
    if found is None:
        return []
    seed, d_k, n_keys, n, value = found
    J = _jacobians(seed, d_k, n_keys, n, bool(case.arguments.get(SCALED, True)))
    matching = [name for name, size in _candidates(J).items() if math.isclose(value, size, rel_tol=MATCH_RTOL)]
    return own(case.function, "other_norm", norm=Message(matching[0], {})) if len(matching) == 1 else []


def _frobenius_mean(J: np.ndarray) -> float:
    return float(np.sqrt(np.sum(J ** 2, axis=(-2, -1))).mean())


def scale_by_other(case: Case) -> list[Finding]:
    """Scaled scores divided by another size than sqrt(d_k): the documented draws' mean Frobenius norm with that
    divisor equals the student's number."""
    found = _experiment(case) if case.arguments.get(SCALED, True) else None
    if found is None:
        return []
    seed, d_k, n_keys, n, value = found
    candidates = {"sqrt(n_keys)": math.sqrt(n_keys), "sqrt(n_samples)": math.sqrt(n), "n_keys": float(n_keys),
                  "sqrt(d_k) / 2": math.sqrt(d_k) / 2, "2·sqrt(d_k)": 2 * math.sqrt(d_k)}
    matching = [name for name, divisor in candidates.items() if not math.isclose(divisor, math.sqrt(d_k))
                and math.isclose(value, _frobenius_mean(_jacobians(seed, d_k, n_keys, n, True, divisor)), rel_tol=MATCH_RTOL)]
    return own(case.function, "scale_by_other", divisor=matching[0]) if len(matching) == 1 else []
