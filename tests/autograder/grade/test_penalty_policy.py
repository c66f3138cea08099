"""One penalty policy in every assignment: a broken contract with right values costs CONTRACT_SHARE of its question.

Each question's reference is wrapped so its values stay right and one contract breaks (an
input written in place, a list returned, a size-1 axis added); graded in-process on copies
of the inputs (as the sandbox sends them), the question must score exactly
``points * (1 - CONTRACT_SHARE)`` and every other question full marks, in all four assignments.
"""

from __future__ import annotations

import numpy as np
import pytest

import attn_reference
from autograder.config import load_course
from autograder.engine import run_suite
from autograder.grade.api import hidden_test_files
from autograder.grade.carry import call_graph
from autograder.inputs import fresh
from autograder.judge.compare import Tolerance, contract
from autograder.scoring import CONTRACT_SHARE, score_questions
from attn_reference.contract import OutputKind
from tests.autograder.support import InProcessSubmission

COURSE = load_course()
TOLERANCE = Tolerance(COURSE.defaults.rtol, COURSE.defaults.atol)
SEED = 5


class CopyingSubmission(InProcessSubmission):
    """In-process callables that receive copies of the inputs, as the sandboxed worker does."""

    def call_observed(self, function: str, *args, **kwargs):
        return super().call_observed(function, *fresh(args), **fresh(kwargs))


def _writes_in_place(reference):
    def wrapped(*args, **kwargs):
        result = reference(*fresh(args), **fresh(kwargs))
        first = next((a for a in args if isinstance(a, np.ndarray)), None)
        if first is not None:  # (a list argument has nothing to write into)
            first[...] = 0  # the right result, then the caller's input overwritten
        return result
    return wrapped


def _returns_lists(reference):
    def wrapped(*args, **kwargs):
        result = reference(*args, **kwargs)
        return tuple(np.asarray(r).tolist() for r in result) if isinstance(result, tuple) else np.asarray(result).tolist()
    return wrapped


def _adds_an_axis(reference):
    def wrapped(*args, **kwargs):
        result = reference(*args, **kwargs)
        return tuple(np.asarray(r)[..., None] for r in result) if isinstance(result, tuple) else np.asarray(result)[..., None]
    return wrapped


BREAKS = {"in-place write": _writes_in_place, "list instead of an array": _returns_lists, "keepdims slip": _adds_an_axis}


def _array_questions():
    """(assignment, function) for every question whose first argument and every output are arrays."""
    cases = []
    for assignment in COURSE.assignments:
        for question in assignment.questions:
            outputs = contract(question.function).outputs
            takes_array = question.function not in ("causal_mask", "dot_product_variance", "softmax_gradient_norm")
            if takes_array and all(o.kind is OutputKind.ARRAY for o in outputs):
                cases.append((assignment, question.function))
    return cases


CASES = _array_questions()


def test_every_assignment_has_a_question_under_the_policy():
    assert {a.id for a, _ in CASES} == {a.id for a in COURSE.assignments}


@pytest.mark.parametrize("breaks", sorted(BREAKS))
@pytest.mark.parametrize("assignment, function", CASES, ids=[f for _, f in CASES])
def test_a_broken_contract_with_right_values_costs_the_fixed_share(assignment, function, breaks):
    functions = {q.function: getattr(attn_reference, q.function) for q in assignment.questions}
    functions[function] = BREAKS[breaks](functions[function])
    results = run_suite(hidden_test_files(assignment), CopyingSubmission(functions), TOLERANCE, seed=SEED,
                        questions=assignment.functions, upstream=call_graph(assignment.functions))
    scores = {q.function: (q.score, q.points) for q in score_questions(assignment, results)}
    score, points = scores.pop(function)
    assert score == pytest.approx(points * (1 - CONTRACT_SHARE), abs=1e-4), [(r.name, r.kind, r.message) for r in results
                                                                             if not r.passed]
    assert all(score == points for score, points in scores.values()), scores


def _keeps_integers(reference):
    def wrapped(X, *args, **kwargs):
        result = reference(X, *args, **kwargs)
        return result.astype(np.asarray(X).dtype) if np.asarray(X).dtype.kind in "iu" else result  # no cast to float
    return wrapped


def _dtype_slip_costs_the_share_and_is_named(function: str, wrong, bug_id: str) -> None:
    """``function`` replaced by ``wrong`` (right values in another kind of dtype): the fixed share, named ``bug_id``."""
    assignment = next(a for a in COURSE.assignments if function in a.functions)
    functions = {q.function: getattr(attn_reference, q.function) for q in assignment.questions}
    functions[function] = wrong
    results = run_suite(hidden_test_files(assignment), CopyingSubmission(functions), TOLERANCE, seed=SEED,
                        questions=assignment.functions, upstream=call_graph(assignment.functions))
    score, points = next((q.score, q.points) for q in score_questions(assignment, results) if q.function == function)
    assert score == pytest.approx(points * (1 - CONTRACT_SHARE), abs=1e-4)
    failed = [r for r in results if not r.passed]
    assert failed and all(bug_id in [d.id for d in r.diagnoses] for r in failed)


def test_right_values_kept_as_integers_cost_the_fixed_share_and_are_named():
    _dtype_slip_costs_the_share_and_is_named("split_heads", _keeps_integers(attn_reference.split_heads), "call.not_float")


def test_a_mask_of_the_right_pattern_as_numbers_costs_the_fixed_share_and_is_named():
    _dtype_slip_costs_the_share_and_is_named("causal_mask", lambda n: np.tri(n), "causal_mask.not_boolean")  # float 0/1
