"""Public-check messages call an output by its docstring's name and a number without an index; identical
tracebacks (from calls with other inputs) are shown once with their count, in the check and in the grade."""

from types import SimpleNamespace

import pytest

from autograder.build.markers import keep_solutions
from autograder.check.api import check_submission, format_check
from autograder.config import load_course
from autograder.grade.api import grade_submission
from autograder.report.text import by_message, to_text
from autograder.paths import SOLUTIONS_DIR

COURSE = load_course()
HW1, HW2 = COURSE.assignments[0], COURSE.assignments[1]


def _module(tmp_path, assignment, extra: str):
    source = keep_solutions((SOLUTIONS_DIR / assignment.id / assignment.module).read_text(encoding="utf-8"))
    path = tmp_path / assignment.module
    path.write_text(source + "\n\nimport math\n" + extra, encoding="utf-8")
    return path


@pytest.mark.slow
def test_a_wrong_second_output_is_called_by_name_and_a_wrong_number_without_index(tmp_path):
    wrong = '''
_right_attention = scaled_dot_product_attention


def scaled_dot_product_attention(Q, K, V, mask=None):
    Z, A = _right_attention(Q, K, V, mask)
    return Z, A * 1.01


def dot_product_variance(d_k, n_samples, rng):
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.sum(q * k, axis=-1)
    return 1.1 * float(np.var(dots)), float(np.var(dots / math.sqrt(d_k)))
'''
    report = check_submission(COURSE, HW1.id, _module(tmp_path, HW1, wrong))
    text = format_check(report)
    assert "attention_batched_masked: A: wrong values at index (0, 0, 0)" in text, text
    assert "variance_d_k_12: var_raw: expected" in text, text
    assert "index ()" not in text and "[1]:" not in text and "_12[0]" not in text


@pytest.mark.slow
def test_the_honest_control_has_no_failure_message(tmp_path):
    report = check_submission(COURSE, HW1.id, _module(tmp_path, HW1, ""))
    assert report.passed, format_check(report)


def _test(message: str, description: str = "a test"):
    return SimpleNamespace(message=message, description=description)


def test_failures_sharing_a_traceback_are_one_group_keyed_by_it_and_a_lone_one_keeps_its_message():
    trace = 'Traceback (most recent call last):\n  File "m.py", line 3, in f\nNameError: name \'g\' is not defined'
    groups = by_message([_test(f"f on a batch: {trace}"), _test(f"f on one step: {trace}"), _test("f: wrong values"),
                         _test(f"g on a batch: {trace.replace('g', 'h')}")])
    assert groups[trace] and len(groups[trace]) == 2
    assert "f: wrong values" in groups and f"g on a batch: {trace.replace('g', 'h')}" in groups
    assert len(groups) == 3


@pytest.mark.slow
def test_the_grade_shows_one_traceback_for_every_test_that_raised_it(tmp_path):
    raising = '''
def attention_context(scores, H, mask=None):
    alpha = softmaxx(np.asarray(scores, dtype=float))
    return alpha @ H, alpha
'''
    text = to_text(grade_submission(COURSE, HW2.id, _module(tmp_path, HW2, raising), seed=1))
    assert text.count("NameError: name 'softmaxx' is not defined") == 1, text
    assert "tests: Traceback (most recent call last):" in text
