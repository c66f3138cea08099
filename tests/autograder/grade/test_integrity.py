"""Statistical answers must come from their generator, and dtypes are what the docstrings promise (real sandbox).

Each attack is graded beside an honest control; the assignments and functions come from course.yml.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.grade.api import grade_submission
from autograder.paths import SOLUTIONS_DIR

pytestmark = pytest.mark.slow

COURSE = load_course()
HW1 = COURSE.assignment("hw1_scaled_attention")
HW4 = COURSE.assignment("hw4_gradients")
#: The hidden tests that judge an experiment by sampling error (the others replay the documented draw order).
STATISTICAL = {"dot_product_variance": "test_variance_is_d_k_then_one",
               "softmax_gradient_norm": ("test_scaled_norm", "test_unscaled_norm")}


def _solution(assignment) -> str:
    return keep_solutions((SOLUTIONS_DIR / assignment.id / assignment.module).read_text(encoding="utf-8"))


def _graded(tmp_path: Path, assignment, code: str, name: str):
    folder = tmp_path / name
    folder.mkdir()
    path = folder / assignment.module
    path.write_text(_solution(assignment) + "\n\n" + textwrap.dedent(code) + "\n", encoding="utf-8")
    result = grade_submission(COURSE, assignment.id, path)
    assert result.load_error is None, result.load_error
    return next(q for q in result.questions if q.function in STATISTICAL), result


def _statistical(question) -> list:
    return [t for t in question.tests if t.name.startswith(STATISTICAL[question.function])]


HW1_CONSTANTS = """
def dot_product_variance(d_k, n_samples, rng):
    return float(d_k), 1.0
"""
HW1_JITTER = """
def dot_product_variance(d_k, n_samples, rng):
    return float(d_k) + 1e-9 * rng.standard_normal(), 1.0 + 1e-9 * rng.standard_normal()
"""
HW1_OTHER_ORDER = """
def dot_product_variance(d_k, n_samples, rng):
    pairs = rng.standard_normal((n_samples, 2, d_k))  # q and k of each sample together: not the documented order
    dots = np.sum(pairs[:, 0] * pairs[:, 1], axis=-1)
    return float(np.var(dots)), float(np.var(dots / math.sqrt(d_k)))
"""
HW4_CONSTANTS = """
def softmax_gradient_norm(d_k, n_keys, n_samples, rng, scaled=True):
    return 0.36552 if scaled else 0.15158
"""
HW4_OTHER_ORDER = """
def softmax_gradient_norm(d_k, n_keys, n_samples, rng, scaled=True):
    K = rng.standard_normal((n_samples, n_keys, d_k))  # K first: legitimate, but not the documented order
    q = rng.standard_normal((n_samples, d_k))
    scores = np.einsum("nkd,nd->nk", K, q) / (math.sqrt(d_k) if scaled else 1.0)
    a = softmax(scores)
    J = a[..., :, None] * (np.eye(n_keys) - a[..., None, :])
    return float(np.mean(np.sqrt(np.sum(J * J, axis=(-2, -1)))))
"""


@pytest.mark.parametrize("assignment, attack", [(HW1, HW1_CONSTANTS), (HW1, HW1_JITTER), (HW4, HW4_CONSTANTS)],
                         ids=["hw1 constants", "hw1 constants with a jitter", "hw4 constants"])
def test_population_values_returned_as_constants_pass_no_statistical_test(tmp_path, assignment, attack):
    question, _ = _graded(tmp_path, assignment, attack, "attack")
    assert question.score == 0
    assert all(not t.passed and "different generators" in str(t.message) for t in _statistical(question))


@pytest.mark.parametrize("assignment, honest", [(HW1, HW1_OTHER_ORDER), (HW4, HW4_OTHER_ORDER)], ids=["hw1", "hw4"])
def test_a_real_estimator_in_another_draw_order_passes_the_statistical_tests(tmp_path, assignment, honest):
    question, _ = _graded(tmp_path, assignment, honest, "honest")
    statistical = _statistical(question)
    assert statistical and all(t.passed for t in statistical), [(t.name, t.message) for t in statistical]
    assert 0 < question.score < question.points, "the exact replays of the documented order fail"


FLOAT128_ATTENTION = """
_true_attention = scaled_dot_product_attention

def scaled_dot_product_attention(Q, K, V, mask=None):
    Z, A = _true_attention(Q, K, V, mask)
    if Z.dtype == np.float32:
        return Z.astype(np.longdouble), A.astype(np.longdouble)
    return Z, A
"""
FLOAT32_FOR_FLOAT64 = """
_true_attention = scaled_dot_product_attention

def scaled_dot_product_attention(Q, K, V, mask=None):
    Z, A = _true_attention(Q, K, V, mask)
    return Z.astype(np.float32), A.astype(np.float32)
"""


def _attention(tmp_path: Path, code: str, name: str):
    folder = tmp_path / name
    folder.mkdir()
    path = folder / HW1.module
    path.write_text(_solution(HW1) + "\n\n" + textwrap.dedent(code) + "\n", encoding="utf-8")
    result = grade_submission(COURSE, HW1.id, path)
    return next(q for q in result.questions if q.function == "scaled_dot_product_attention")


@pytest.mark.parametrize("code, expected, got", [(FLOAT128_ATTENTION, "float32", "float128"),
                                                 (FLOAT32_FOR_FLOAT64, "float64", "float32")],
                         ids=["float32 as longdouble", "float64 as float32"])
def test_a_result_in_another_float_dtype_fails_and_is_named(tmp_path, code, expected, got):
    control = _attention(tmp_path, "", "control")
    attacked = _attention(tmp_path, code, "attack")
    assert control.score == control.points
    assert attacked.score < attacked.points
    failed = attacked.failed_tests
    assert failed and all(any(d.id == "call.wrong_dtype" for d in t.diagnoses) for t in failed)
    assert any(f"returned {got} where {expected} is documented" in str(t.message) for t in failed)
