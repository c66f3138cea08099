"""On many seeds, the instructor's solutions get full marks and the release stubs none (the hidden suites, in process).

The solutions are trusted instructor code, imported here; the sandboxed path is covered by the
sample class. Every assignment and its points come from course.yml.
"""

from __future__ import annotations

import types

import pytest

from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.engine import run_suite
from autograder.grade.api import hidden_test_files
from autograder.grade.carry import call_graph
from autograder.judge.compare import Tolerance
from autograder.paths import ASSIGNMENTS_DIR, SOLUTIONS_DIR
from autograder.scoring import score_questions
from tests.autograder.support import InProcessSubmission

pytestmark = pytest.mark.slow

COURSE = load_course()
SEEDS = range(50)
TOLERANCE = Tolerance(COURSE.defaults.rtol, COURSE.defaults.atol)


def _module(path, name: str, solution: bool) -> types.ModuleType:
    text = path.read_text(encoding="utf-8")
    module = types.ModuleType(name)
    exec(compile(keep_solutions(text) if solution else text, str(path), "exec"), module.__dict__)
    return module


def _points(assignment, module: types.ModuleType, seed: int) -> float:
    functions = {name: getattr(module, name) for name in assignment.functions}
    results = run_suite(hidden_test_files(assignment), InProcessSubmission(functions), TOLERANCE, seed=seed,
                        questions=assignment.functions, upstream=call_graph(assignment.functions))
    return sum(q.score for q in score_questions(assignment, results))


@pytest.mark.parametrize("assignment", COURSE.assignments, ids=lambda a: a.id)
def test_the_solution_gets_full_marks_and_the_stub_none_on_every_seed(assignment):
    solution = _module(SOLUTIONS_DIR / assignment.id / assignment.module, assignment.module_name, solution=True)
    stub = _module(ASSIGNMENTS_DIR / assignment.id / assignment.module, assignment.module_name, solution=False)
    lost = {seed: _points(assignment, solution, seed) for seed in SEEDS}
    assert all(points == assignment.max_points for points in lost.values()), {s: p for s, p in lost.items()
                                                                             if p != assignment.max_points}
    assert all(_points(assignment, stub, seed) == 0 for seed in SEEDS[:5])
