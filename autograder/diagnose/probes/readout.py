"""Probes of a score read out through a vector: ``v . f(W x + U y)``, where ``f`` must be a bounded nonlinearity.

A function with a read-out vector (``v_a``) and weight matrices scores each pair through a nonlinearity applied
to the *sum* of two projections. Two behaviours tell how a wrong version treats that nonlinearity, whatever its
code looks like:

- scores that double when every weight matrix doubles: nothing saturates between the weights and the read-out
  (no tanh at all, or a positively homogeneous one such as ReLU or ``abs``);
- scores that split into a part of the query state plus a part of the key state: changing the query state moves
  every score of a row by the same amount, so the nonlinearity acts on each projection apart, not on their sum.

Each is asked of the student's own function on changed inputs, and stands only when the reference behaves
otherwise on them (the test inputs can tell the behaviours apart).
"""

from __future__ import annotations

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.probes.arguments import VECTOR_WEIGHTS, WEIGHT_PREFIXES
from autograder.diagnose.probes.finding import Finding, own
from autograder.judge.compare import Parts, close

#: The factor every weight matrix is multiplied by; tanh of the pre-activations does not follow it.
WEIGHT_FACTOR = 2.0
#: The factor the weights are shrunk by to read the scores without their tanh (tanh(x) = x to within x**3 / 3),
#: divided by the largest state entry.
LINEAR_FACTOR = 1e-5
#: How close the student's scores must be to the scores without tanh (relative to their size) to say it is left out.
LINEAR_RTOL = 1e-6
#: The argument whose change moves only the query's part of each score, and the axis its scores run along.
QUERY_STATE, KEY_STATES = "s", "H"


def _weights(case: Case) -> dict[str, np.ndarray]:
    return {name: np.asarray(value) for name, value in case.arguments.items()
            if name.startswith(WEIGHT_PREFIXES) and np.ndim(value) == 2 and np.asarray(value).dtype.kind == "f"}


def _scores(case: Case, answer) -> np.ndarray | None:
    """The single float array a scoring function returned, else None."""
    if isinstance(answer, Parts) and len(answer.arrays) == 1 and answer.arrays[0].dtype.kind == "f":
        return answer.arrays[0]
    return None


def _read_out(case: Case) -> bool:
    return any(case.arguments.get(name) is not None for name in VECTOR_WEIGHTS)


def _proportional(case: Case, doubled: np.ndarray | None, base: np.ndarray | None) -> bool:
    if doubled is None or base is None or doubled.shape != base.shape:
        return False
    return bool(np.all(close(doubled, WEIGHT_FACTOR * base, case.tol)))


def _scales_with_weights(case: Case, weights: dict[str, np.ndarray], student: np.ndarray) -> bool:
    """Whether the student's scores double with every weight matrix, where the reference's do not."""
    doubled = {name: W * WEIGHT_FACTOR for name, W in weights.items()}
    if _proportional(case, _scores(case, case.reference_with(**doubled)), _scores(case, case.reference)):
        return False  # on these inputs the reference scales too: the test cannot tell
    return _proportional(case, _scores(case, case.student_with(**doubled)), student)


def unbounded_activation(case: Case) -> list[Finding]:
    """Scores that double when every weight matrix doubles, where the reference's do not."""
    weights = _weights(case)
    student = _scores(case, case.student)
    if not weights or not _read_out(case) or student is None or not np.isfinite(student).all():
        return []
    if not _scales_with_weights(case, weights, student):
        return []
    return _missing_tanh(case, weights, student) or own(case.function, "unbounded_activation", weights=" and ".join(weights))


def _missing_tanh(case: Case, weights: dict[str, np.ndarray], student: np.ndarray) -> list[Finding]:
    """The scores with no nonlinearity at all: the reference on weights so small that tanh is the identity, scaled
    back up."""
    states = [np.abs(v).max() for n, v in case.arguments.items()
              if n not in weights and isinstance(v, np.ndarray) and v.dtype.kind == "f" and v.size]
    factor = LINEAR_FACTOR / max(1.0, float(max(states, default=1.0)))  # large states need smaller weights
    shrunk = _scores(case, case.reference_with(**{name: W * factor for name, W in weights.items()}))
    if shrunk is None or shrunk.shape != student.shape:
        return []
    linear = shrunk / factor
    scale = float(np.max(np.abs(linear))) or 1.0
    rtol = max(LINEAR_RTOL, 64 * float(np.finfo(student.dtype).eps))
    return own(case.function, "missing_tanh") if np.allclose(student, linear, rtol=rtol, atol=rtol * scale) else []


def _row_shift(case: Case, moved: np.ndarray | None, base: np.ndarray | None) -> bool:
    """Whether ``moved - base`` is the same along the scores' last axis (one shift per row)."""
    if moved is None or base is None or moved.shape != base.shape or base.ndim == 0 or base.shape[-1] < 2:
        return False
    shift = moved - base
    return bool(np.all(close(shift, np.broadcast_to(shift[..., :1], shift.shape), case.tol)))


def nonlinearity_per_part(case: Case) -> list[Finding]:
    """Scores that are a part of the query state plus a part of each key state: another query state shifts a row's
    scores all alike, where the reference's change differently."""
    state, student = case.arguments.get(QUERY_STATE), _scores(case, case.student)
    if not _read_out(case) or not isinstance(state, np.ndarray) or state.dtype.kind != "f" or student is None:
        return []
    if not np.isfinite(student).all() or case.arguments.get(KEY_STATES) is None:
        return []
    other = (-state[..., ::-1] + 0.5).astype(state.dtype)  # another state of the same shape and scale
    if _row_shift(case, _scores(case, case.reference_with(**{QUERY_STATE: other})), _scores(case, case.reference)):
        return []
    if not _row_shift(case, _scores(case, case.student_with(**{QUERY_STATE: other})), student):
        return []
    if _scales_with_weights(case, _weights(case), student):
        return []  # no nonlinearity at all (or one that does not saturate): unbounded_activation says which
    return own(case.function, "nonlinearity_per_part")
