"""The runtime exported cells call: the course's own verdicts, the hidden suite once per namespace, output contained."""

import numpy as np
import pytest

from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.demo.sample_class import buggy_source, sample_class
from autograder.export import runtime
from autograder.export.spec import GradingSpec
from autograder.grade.api import grade_submission
from autograder.paths import SOLUTIONS_DIR

COURSE = load_course()
BUGGY_STUDENTS = sample_class(COURSE.layout).students
IDS = [a.id for a in COURSE.assignments]


def _namespace(source: str) -> dict:
    namespace = {"__name__": "notebook"}
    exec(compile(source, "<cell>", "exec"), namespace)
    return namespace


def _solution(assignment_id: str) -> str:
    assignment = COURSE.assignment(assignment_id)
    return keep_solutions((SOLUTIONS_DIR / assignment_id / assignment.module).read_text(encoding="utf-8"))


@pytest.mark.parametrize("assignment_id", IDS)
def test_scores_equal_the_sandboxed_graders_on_the_same_seed(assignment_id, tmp_path):
    """Agreement by construction: the solution and the first buggy student, question by question."""
    spec = GradingSpec.of(COURSE, assignment_id)
    assignment = COURSE.assignment(assignment_id)
    for source in (_solution(assignment_id), buggy_source(_solution(assignment_id), BUGGY_STUDENTS[assignment_id][0])):
        path = tmp_path / assignment.module
        path.write_text(source, encoding="utf-8")
        theirs = [q.score for q in grade_submission(COURSE, assignment_id, path, seed=spec.seed).questions]
        namespace = _namespace(source)
        assert [runtime.question_score(namespace, f, spec.to_json()) for f in assignment.functions] == theirs


def test_the_suite_runs_once_per_namespace(monkeypatch):
    spec = GradingSpec.of(COURSE, IDS[0])
    runs = []
    real = runtime.run_suite
    monkeypatch.setattr(runtime, "run_suite", lambda *a, **k: runs.append(1) or real(*a, **k))
    namespace = _namespace(_solution(IDS[0]))
    for function in spec.functions:
        runtime.question_score(namespace, function, spec)
    assert len(runs) == 1
    runtime.question_score(_namespace(_solution(IDS[0])), spec.functions[0], spec)
    assert len(runs) == 2


def test_warnings_and_output_are_contained(capfd):
    """nbgrader gives 0 to a grade cell that writes to stderr: nothing gets out, from Python or from the descriptors."""
    noisy = _solution(IDS[0]).replace("def softmax(", "def _quiet_softmax(", 1) + '''
import os, warnings
def softmax(x, axis=-1):
    print("debugging")
    warnings.warn("a student warning")
    os.write(2, b"raw stderr\\n")
    np.exp(np.array([1e4]))  # overflow
    return _quiet_softmax(x, axis)
'''
    spec = GradingSpec.of(COURSE, IDS[0])
    assert runtime.question_score(_namespace(noisy), "softmax", spec) == next(q.points for q in COURSE.assignments[0].questions if q.function == "softmax")
    captured = capfd.readouterr()
    assert (captured.out, captured.err) == ("", "")


def test_a_failed_hidden_test_says_why_and_names_the_bug():
    spec = GradingSpec.of(COURSE, IDS[0])
    student = next(s for s in BUGGY_STUDENTS[IDS[0]] if s.name == "dana")
    namespace = _namespace(buggy_source(_solution(IDS[0]), student))
    failed = [r for r in runtime.hidden_results(namespace, spec) if not r.passed]
    assert failed and all(r.question == "scaled_dot_product_attention" for r in failed)
    problem = runtime.hidden_test_problem(namespace, spec, failed[0].question, failed[0].name)
    assert failed[0].message in problem and "Likely cause [attention.scale_by_dk]" in problem
    passed = next(r for r in runtime.hidden_results(namespace, spec) if r.passed)
    assert runtime.hidden_test_problem(namespace, spec, passed.question, passed.name) is None


def test_an_unknown_hidden_test_is_a_grader_error():
    from autograder.errors import GraderError

    spec = GradingSpec.of(COURSE, IDS[0])
    with pytest.raises(GraderError, match="no hidden test"):
        runtime.hidden_test_problem(_namespace(_solution(IDS[0])), spec, "softmax", "test_that_does_not_exist")


def test_a_missing_function_scores_zero():
    spec = GradingSpec.of(COURSE, IDS[0])
    namespace = _namespace(_solution(IDS[0]).replace("def causal_mask(", "def renamed_mask(", 1))
    assert runtime.question_score(namespace, "causal_mask", spec) == 0.0
    assert isinstance(np.float64(runtime.question_score(namespace, "softmax", spec)), np.float64)
