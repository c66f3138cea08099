"""The hidden suites have power: the reference passes everything, and every known bug fails and is named.

The gate runs the hidden tests against trusted in-process callables (the reference, or the
reference with one function replaced by a mutant), so it is fast and isolates the tests'
power from the sandbox, which has its own tests.
"""

import pytest

import attn_reference
from autograder.config import load_course
from autograder.engine import run_suite
from autograder.grade.api import hidden_test_files
from autograder.grade.compare import Tolerance
from autograder.mutants import MUTANTS
from autograder.scoring import score_questions
from tests.autograder.support import InProcessSubmission

COURSE = load_course()
TOLERANCE = Tolerance(COURSE.defaults.rtol, COURSE.defaults.atol)
ASSIGNMENT_OF = {q.function: a for a in COURSE.assignments for q in a.questions}


def _reference_functions(assignment) -> dict:
    return {q.function: getattr(attn_reference, q.function) for q in assignment.questions}


@pytest.mark.parametrize("assignment", COURSE.assignments, ids=lambda a: a.id)
def test_reference_gets_full_marks(assignment):
    results = run_suite(hidden_test_files(assignment), InProcessSubmission(_reference_functions(assignment)), TOLERANCE)
    assert results and all(r.passed for r in results), [(r.name, r.message) for r in results if not r.passed]
    assert sum(q.score for q in score_questions(assignment, results)) == assignment.max_points


@pytest.mark.parametrize("assignment", COURSE.assignments, ids=lambda a: a.id)
def test_missing_functions_get_zero(assignment):
    results = run_suite(hidden_test_files(assignment), InProcessSubmission({}), TOLERANCE)
    assert results and not any(r.passed for r in results)
    assert {r.kind for r in results} == {"missing_function"}


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: f"{m.id}[{m.variant}]" if m.variant else m.id)
def test_every_mutant_fails_a_hidden_test_and_is_named(mutant):
    assignment = ASSIGNMENT_OF[mutant.function]
    functions = _reference_functions(assignment) | {mutant.function: mutant.implementation}
    results = run_suite(hidden_test_files(assignment), InProcessSubmission(functions), TOLERANCE)
    failed = [r for r in results if not r.passed]
    assert failed, f"no hidden test catches {mutant.id} {mutant.variant}"
    assert mutant.function in {r.question for r in failed}
    named = {d.id for r in failed for d in r.diagnoses}
    assert mutant.id in named, f"{mutant.id} fails {len(failed)} tests but is never diagnosed (got {named or 'nothing'})"
