"""The public checks judge by the grade's rules: each property grading judges fails its public case too, a result
the hidden tests accept (another estimator) passes, and the honest solution keeps every point.

Each mistake is the honest solution with one function replaced, so the control is the same module without it.
"""

import numpy as np
import pytest

from autograder.build.markers import keep_solutions
from autograder.check.api import check_submission, format_check
from autograder.check.checklib import load_cases
from autograder.config import load_course
from autograder.grade.api import grade_submission
from autograder.judge.compare import contract
from autograder.paths import ASSIGNMENTS_DIR, SOLUTIONS_DIR

pytestmark = pytest.mark.slow
COURSE = load_course()
HW1 = COURSE.assignments[0]

#: One function replaced by a version that breaks one graded property (and only that one).
MISTAKES = {
    "modifies its input": ("softmax", '''
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind == "f":
        x -= np.max(x, axis=axis, keepdims=True)
        np.exp(x, out=x)
        x /= np.sum(x, axis=axis, keepdims=True)
        return x
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)
'''),
    "turns float32 into float64": ("softmax", '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)
'''),
    "no max shift (large scores)": ("softmax", '''
def softmax(x, axis=-1):
    e = np.exp(np.asarray(x, dtype=np.result_type(x, np.float64) if np.asarray(x).dtype.kind != "f" else x.dtype))
    return e / np.sum(e, axis=axis, keepdims=True)
'''),
    "a mask of one shape only": ("scaled_dot_product_attention", '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.ndim == 2:
            scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A
'''),
}


def _module(tmp_path, replacement: str = "") -> object:
    source = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
    path = tmp_path / HW1.module
    path.write_text(source + "\n\nimport math\n" + replacement, encoding="utf-8")
    return path


def _lost(report) -> dict:
    return {q.function: q.points - q.score for q in report.questions if q.score < q.points}


def test_the_honest_control_keeps_every_public_point(tmp_path):
    report = check_submission(COURSE, HW1.id, _module(tmp_path))
    assert report.passed and report.score == HW1.max_points, format_check(report)


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_each_graded_property_fails_a_public_check_where_grading_takes_points(tmp_path, mistake):
    function, replacement = MISTAKES[mistake]
    path = _module(tmp_path, replacement)
    graded = grade_submission(COURSE, HW1.id, path, seed=3)
    assert function in {q.function for q in graded.questions if q.score < q.points}, "the hidden tests grade it"
    public = check_submission(COURSE, HW1.id, path)
    callers = {f for f in HW1.functions if function in contract(f).calls}  # they run the student's function too
    assert function in _lost(public) and set(_lost(public)) <= {function, *callers}, format_check(public)


def test_an_input_changed_in_place_is_named_by_its_parameter(tmp_path):
    report = check_submission(COURSE, HW1.id, _module(tmp_path, MISTAKES["modifies its input"][1]))
    messages = [t.message for q in report.questions for t in q.failed_tests]
    assert any("the call changed its argument x in place" in m for m in messages), messages


def test_float32_promoted_says_which_dtype(tmp_path):
    report = check_submission(COURSE, HW1.id, _module(tmp_path, MISTAKES["turns float32 into float64"][1]))
    messages = [t.message for q in report.questions for t in q.failed_tests]
    assert messages and all("expected dtype float32, got float64" in m for m in messages), messages


def test_another_estimator_the_hidden_tests_accept_passes_the_public_checks_too(tmp_path):
    """The issue's correct module: a variance with ddof=1 (1 of 2 public points before, full marks at grading)."""
    function = HW1.questions[-1].function
    replacement = f'''
def {function}(d_k, n_samples, rng):
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    products = np.sum(q * k, axis=-1)
    return float(np.var(products, ddof=1)), float(np.var(products / math.sqrt(d_k), ddof=1))
'''
    path = _module(tmp_path, replacement)
    assert grade_submission(COURSE, HW1.id, path, seed=3).score == HW1.max_points
    report = check_submission(COURSE, HW1.id, path)
    assert report.passed, format_check(report)


@pytest.mark.parametrize("assignment", COURSE.assignments, ids=lambda a: a.id)
def test_every_function_with_array_inputs_has_batched_float32_and_float64_cases(assignment):
    cases = load_cases(ASSIGNMENTS_DIR / assignment.id / "public_cases.npz")
    for function in assignment.functions:
        arrays = [[a for a in case.args if isinstance(a, np.ndarray)] for case in cases if case.function == function]
        if not any(arrays):
            continue  # it takes sizes and a generator only
        dtypes = {a.dtype for found in arrays for a in found if a.dtype.kind == "f"}
        assert {np.dtype(np.float32), np.dtype(np.float64)} <= dtypes, function
        assert any(a.ndim >= 3 for found in arrays for a in found), f"{function}: no batched case"
