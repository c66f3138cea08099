"""Error carried forward cannot be gamed, and keeps its promise to honest students (real sandbox, every assignment).

Each attack is graded beside an honest control that does the same work without the trick:
the attack must gain nothing over it. The honest cases are students whose only bug is in an
upstream function: the downstream function keeps its points, also when that bug makes it raise.
The assignments, their functions and points come from course.yml; which function calls which
from the reference's contracts.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.grade.api import grade_submission
from autograder.grade.carry import upstream_of
from autograder.paths import SOLUTIONS_DIR

pytestmark = pytest.mark.slow

COURSE = load_course()
#: (assignment, downstream function, its graded upstream functions) for every function that calls another.
CALLERS = [
    (assignment, function, upstream_of(function, assignment.functions))
    for assignment in COURSE.assignments for function in assignment.functions
    if upstream_of(function, assignment.functions)
]
IDS = [f"{a.id}:{f}" for a, f, _ in CALLERS]


def _solution(assignment) -> str:
    return keep_solutions((SOLUTIONS_DIR / assignment.id / assignment.module).read_text(encoding="utf-8"))


def _override(source: str, code: str) -> str:
    """The module with ``code`` appended: its definitions replace the solution's (they run later)."""
    return source + "\n\n" + textwrap.dedent(code) + "\n"


def _zeros(function: str) -> str:
    """``function`` redefined to return zeros shaped like the solution's result (input-dependent shape, constant values)."""
    return f"""
    _true_{function} = {function}

    def {function}(*args, **kwargs):
        out = _true_{function}(*args, **kwargs)
        return tuple(np.zeros_like(np.asarray(p)) for p in out) if isinstance(out, tuple) else np.zeros_like(np.asarray(out))
    """


def _points(tmp_path: Path, assignment, source: str, name: str) -> dict[str, float]:
    folder = tmp_path / name
    folder.mkdir()
    path = folder / assignment.module
    path.write_text(source, encoding="utf-8")
    result = grade_submission(COURSE, assignment.id, path)
    assert result.load_error is None, result.load_error
    return {q.function: q.score for q in result.questions}


def _full(assignment, function: str) -> float:
    return next(q.points for q in assignment.questions if q.function == function)


@pytest.mark.parametrize("assignment, function, upstream", CALLERS, ids=IDS)
def test_a_stateful_upstream_does_not_make_a_constant_downstream_right(tmp_path, assignment, function, upstream):
    """The red team's oracle: a downstream returning zeros, and an upstream that answers zeros whenever the
    grader calls it directly once the downstream has been called (a re-check that called the student's own
    upstream took those zeros as the truth), and right otherwise."""
    stateful = f"""
    _state = {{"inside": False, "seen": False}}
    _zero_{function} = {function}

    def {function}(*args, **kwargs):
        _state["inside"], _state["seen"] = True, True
        try:
            return _zero_{function}(*args, **kwargs)
        finally:
            _state["inside"] = False
    """ + "".join(f"""
    _true_{name} = {name}

    def {name}(*args, **kwargs):
        out = _true_{name}(*args, **kwargs)
        return np.zeros_like(np.asarray(out)) if _state["seen"] and not _state["inside"] else out
    """ for name in upstream)
    honest = _override(_solution(assignment), _zeros(function))
    attack = _override(honest, stateful)
    control, attacked = _points(tmp_path, assignment, honest, "honest"), _points(tmp_path, assignment, attack, "attack")
    assert attacked[function] == 0 and control[function] == 0
    assert sum(attacked.values()) <= sum(control.values())


@pytest.mark.parametrize("assignment, function, upstream", CALLERS, ids=IDS)
def test_an_upstream_and_a_downstream_both_constant_score_nothing(tmp_path, assignment, function, upstream):
    source = _override(_solution(assignment), "".join(_zeros(name) for name in (*upstream, function)))
    points = _points(tmp_path, assignment, source, "zeros")
    assert all(points[name] == 0 for name in (*upstream, function)), points


@pytest.mark.parametrize("assignment, function, upstream", CALLERS, ids=IDS)
def test_a_downstream_that_only_calls_a_raising_upstream_is_not_excused(tmp_path, assignment, function, upstream):
    """No code of its own: it forwards its first argument to the upstream, which raises."""
    first = upstream[0]
    code = f"""
    def {first}(*args, **kwargs):
        raise ValueError("broken on purpose")

    def {function}(*args, **kwargs):
        return {first}(args[0])
    """
    points = _points(tmp_path, assignment, _override(_solution(assignment), code), "forwarding")
    assert points[function] == 0 and points[first] == 0


@pytest.mark.parametrize("assignment, function, upstream", CALLERS, ids=IDS)
def test_a_kept_stand_in_answers_nothing_afterwards(tmp_path, assignment, function, upstream):
    """The downstream keeps the stand-in it was given; the upstream tries to use it later: it gains nothing."""
    first = upstream[0]
    code = f"""
    _kept = []
    _true_{function} = {function}
    _own_{first} = {first}

    def {function}(*args, **kwargs):
        if globals()["{first}"] is not _own_{first}:
            _kept.append(globals()["{first}"])
        return _true_{function}(*args, **kwargs)

    def {first}(*args, **kwargs):
        if _kept:
            return _kept[-1](*args, **kwargs)
        return np.zeros_like(np.asarray(_true_{first}(*args, **kwargs)))

    _true_{first} = _own_{first}
    """
    honest_code = f"""
    _true_{first} = {first}

    def {first}(*args, **kwargs):
        return np.zeros_like(np.asarray(_true_{first}(*args, **kwargs)))
    """
    attacked = _points(tmp_path, assignment, _override(_solution(assignment), code), "keeper")
    control = _points(tmp_path, assignment, _override(_solution(assignment), honest_code), "control")
    assert attacked[first] <= control[first] and sum(attacked.values()) <= sum(control.values())


@pytest.mark.parametrize("assignment, function, upstream", CALLERS, ids=IDS)
def test_a_downstream_keeps_its_points_when_its_upstream_is_not_written(tmp_path, assignment, function, upstream):
    code = "".join(f"""
    def {name}(*args, **kwargs):
        raise NotImplementedError("{name}: not implemented yet")
    """ for name in upstream)
    points = _points(tmp_path, assignment, _override(_solution(assignment), code), "stub_upstream")
    assert points[function] == _full(assignment, function)
    assert all(points[name] == 0 for name in upstream)


@pytest.mark.parametrize("assignment, function, upstream", CALLERS, ids=IDS)
def test_a_downstream_keeps_its_points_when_its_upstream_returns_the_wrong_shape(tmp_path, assignment, function, upstream):
    """An extra leading axis on the upstream's result makes most downstream functions raise or misshape."""
    first = upstream[0]
    code = f"""
    _true_{first} = {first}

    def {first}(*args, **kwargs):
        return np.asarray(_true_{first}(*args, **kwargs))[None]
    """
    points = _points(tmp_path, assignment, _override(_solution(assignment), code), "misshaped")
    assert points[function] == _full(assignment, function)
    assert points[first] < _full(assignment, first)


@pytest.mark.parametrize("assignment, function, upstream", CALLERS, ids=IDS)
def test_a_wrong_downstream_is_not_excused_by_a_wrong_upstream(tmp_path, assignment, function, upstream):
    """Both wrong by a factor: the downstream's own error shows with the reference's upstream too."""
    source = _override(_solution(assignment), f"""
    _true_{function} = {function}

    def {function}(*args, **kwargs):
        out = _true_{function}(*args, **kwargs)
        return tuple(1.5 * np.asarray(p) for p in out) if isinstance(out, tuple) else 1.5 * np.asarray(out)
    """ + "".join(f"""
    def {name}(*args, **kwargs):
        raise NotImplementedError("{name}")
    """ for name in upstream))
    points = _points(tmp_path, assignment, source, "both_wrong")
    assert points[function] < _full(assignment, function)


def test_re_checks_happen_only_for_a_failing_function_whose_upstream_failed():
    """The stand-ins' round trips cost only submissions with a wrong upstream function (speed and fairness)."""
    import functools

    import attn_reference
    from autograder.grade.api import hidden_test_files
    from autograder.grade.carry import call_graph
    from autograder.judge.compare import Tolerance
    from autograder.engine import run_suite
    from autograder.mutants import all_mutants
    from tests.autograder.support import InProcessSubmission

    MUTANTS = all_mutants()

    class Counting(InProcessSubmission):
        rechecks = 0

        def call_with_standins(self, *args, **kwargs):
            Counting.rechecks += 1
            return super().call_with_standins(*args, **kwargs)

    assignment, function, upstream = CALLERS[0]
    wrong_downstream = next(m for m in MUTANTS if m.function == function)
    wrong_upstream = next(m for m in MUTANTS if m.function == upstream[0])
    functions = {name: getattr(attn_reference, name) for name in assignment.functions}
    tolerance = Tolerance(COURSE.defaults.rtol, COURSE.defaults.atol)
    calling_the_wrong_one = functools.partial(getattr(attn_reference, function), **{upstream[0]: wrong_upstream.implementation})
    for replaced, expect_rechecks in (({function: wrong_downstream.implementation}, False),
                                      ({upstream[0]: wrong_upstream.implementation, function: calling_the_wrong_one}, True)):
        Counting.rechecks = 0
        run_suite(hidden_test_files(assignment), Counting({**functions, **replaced}), tolerance,
                  questions=assignment.functions, upstream=call_graph(assignment.functions))
        assert (Counting.rechecks > 0) == expect_rechecks, (replaced, Counting.rechecks)


def _gradients_assignment():
    """The assignment whose attention backward calls softmax_backward, and those two functions (from the contracts)."""
    for assignment, function, upstream in CALLERS:
        if "softmax_backward" in upstream:
            return assignment, function
    pytest.fail("no graded function calls softmax_backward")


def test_a_downstream_passing_its_upstream_arrays_that_only_broadcast_keeps_its_points(tmp_path):
    """The downstream hands softmax_backward an unbatched A beside a batched dA (an elementwise upstream takes it; the
    reference's wants equal shapes). With a wrong upstream, the downstream is still right given a correct one."""
    assignment, function = _gradients_assignment()
    solution = _solution(assignment)
    assert "A, dA = np.broadcast_arrays(A, dA)" in solution
    unbroadcast = solution.replace("A, dA = np.broadcast_arrays(A, dA)", "pass")
    diagonal_only = """
    def softmax_backward(A, dA, axis=-1):
        A, dA = np.asarray(A, dtype=np.float64), np.asarray(dA, dtype=np.float64)
        return A * (1 - A) * dA  # the Jacobian's diagonal only: elementwise, so any broadcastable A and dA
    """
    honest = _points(tmp_path, assignment, _override(unbroadcast, diagonal_only.replace("(1 - A) * dA", "(dA - np.sum(dA * A, axis=axis, keepdims=True))")), "right_upstream")
    assert honest[function] == _full(assignment, function)  # control: with a right elementwise upstream it is right
    points = _points(tmp_path, assignment, _override(unbroadcast, diagonal_only), "wrong_upstream")
    assert points["softmax_backward"] < _full(assignment, "softmax_backward")
    assert points[function] == _full(assignment, function)
    scaled = _override(unbroadcast, diagonal_only + f"""
    _true_{function} = {function}

    def {function}(*args, **kwargs):
        return tuple(1.5 * np.asarray(p) for p in _true_{function}(*args, **kwargs))
    """)
    assert _points(tmp_path, assignment, scaled, "both_wrong")[function] < _full(assignment, function)


#: A softmax_backward that clips the weights at 1e-10 first: masked weights get a tiny gradient, not exactly 0.
CLIPPING_UPSTREAM = """
def softmax_backward(A, dA, axis=-1):
    A, dA = np.asarray(A), np.asarray(dA)
    dtype = np.float32 if A.dtype == dA.dtype == np.float32 else np.float64
    A, dA = np.clip(A.astype(dtype), 1e-10, 1.0), dA.astype(dtype)
    return A * (dA - np.sum(dA * A, axis=axis, keepdims=True))
"""


def test_an_exact_check_is_carried_only_by_a_re_check_whose_values_are_right(tmp_path):
    """The exact zero of a query with no allowed key is carried from a clipping softmax_backward (honest control);
    a downstream that answers the re-check, and only the re-check, with zeros (exactly 0 there too) gains nothing."""
    assignment, function = _gradients_assignment()
    honest = _points(tmp_path, assignment, _override(_solution(assignment), CLIPPING_UPSTREAM), "honest")
    assert honest["softmax_backward"] < _full(assignment, "softmax_backward")
    assert honest[function] == _full(assignment, function)
    zeros_on_re_check = CLIPPING_UPSTREAM + f"""
_own_softmax_backward = softmax_backward
_true_{function} = {function}

def {function}(*args, **kwargs):
    out = _true_{function}(*args, **kwargs)
    if softmax_backward is not _own_softmax_backward:  # the grader's stand-in is bound: a re-check
        return tuple(np.zeros_like(np.asarray(p)) for p in out)
    return out
"""
    attack = _points(tmp_path, assignment, _override(_solution(assignment), zeros_on_re_check), "attack")
    assert attack[function] < honest[function]
