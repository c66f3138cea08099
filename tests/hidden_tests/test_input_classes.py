"""The input classes no hidden test drew before issue 25 catch a wrong version each.

Each wrong version is the instructor's solution with one edit (test-only mistakes: the
mutant catalog is moving to the course), graded in-process like the test-power gate; the
hidden test written for that input class must fail it, on every gate seed, and the
solution itself must pass that test.
"""

from __future__ import annotations

import functools

import pytest

from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.engine import run_suite
from autograder.grade.api import hidden_test_files
from autograder.grade.carry import call_graph
from autograder.judge.compare import Tolerance
from autograder.layout import CourseDirectory
from tests.autograder.support import InProcessSubmission

COURSE = load_course()
TOLERANCE = Tolerance(COURSE.defaults.rtol, COURSE.defaults.atol)
SEEDS = (1, 2, 3)
HW1, HW2, HW4 = "hw1_scaled_attention", "hw2_rnn_attention", "hw4_gradients"

#: (assignment, edit of the solution source (old, new), the test that must catch it, its question).
WRONG_VERSIONS = {
    "sum_to_shape never sums a stretched size-1 axis": (
        HW4, ("        if size == 1 and total.shape[axis] != 1:", "        if False:"),
        "test_size_one_batch_axis_is_summed_back", "scaled_dot_product_attention_backward"),
    "backward ignores the mask (a NaN row of A spreads)": (
        HW4, ("    if mask is not None:\n        A = np.where(np.asarray(mask).astype(bool), A, np.zeros((), dtype=A.dtype))",
              "    if False:\n        pass"),
        "test_weights_with_a_fully_masked_row", "scaled_dot_product_attention_backward"),
    "additive -1e4 mask": (
        HW1, ("        scores = np.where(allowed, scores, -np.inf)  # (..., L_q, L_k)",
              "        scores = scores + np.where(allowed, 0.0, -1e4)"),
        "test_padded_keys_may_hold_huge_scores", "scaled_dot_product_attention"),
    "attention squeezes its outputs": (
        HW1, ("    return Z, weights\n", "    return np.squeeze(Z), np.squeeze(weights)\n"),
        "test_a_batch_of_one", "scaled_dot_product_attention"),
    "softmax squeezes its result": (
        HW1, ("        return exps / np.sum(exps, axis=axis, keepdims=True)",
              "        return np.squeeze(exps / np.sum(exps, axis=axis, keepdims=True))"),
        "test_size_one_axes_are_kept", "softmax"),
    "attention written for equal batch axes only": (
        HW1, ("    scores = Q @ K_T  #", "    scores = Q @ K_T if Q.ndim == K.ndim else np.zeros(Q.shape[:-1] + K.shape[-2:-1])  #"),
        "test_batched_queries_against_unbatched_keys", "scaled_dot_product_attention"),
    "softmax always returns float32": (
        HW1, ("        return exps / np.sum(exps, axis=axis, keepdims=True)",
              "        return (exps / np.sum(exps, axis=axis, keepdims=True)).astype(np.float32)"),
        "test_random_batched_last_axis", "softmax"),
    "context with an additive -1e4 mask": (
        HW2, ("        scores = np.where(allowed, scores, -np.inf)  # (..., T)", "        scores = scores + np.where(allowed, 0.0, -1e4)"),
        "test_padded_positions_may_hold_huge_scores", "attention_context"),
}


@functools.lru_cache(maxsize=None)
def solution_source(assignment_id: str) -> str:
    assignment = COURSE.assignment(assignment_id)
    return keep_solutions((CourseDirectory.of().solutions / assignment.id / assignment.module).read_text(encoding="utf-8"))


def functions_of(assignment_id: str, edit: tuple[str, str] | None) -> dict:
    """The solution's graded functions, with ``edit`` applied to its source (trusted: the instructor's master)."""
    source = solution_source(assignment_id)
    if edit is not None:
        assert source.count(edit[0]) >= 1, f"the edit {edit[0]!r} no longer applies to the solution"
        source = source.replace(edit[0], edit[1], 1)
    namespace: dict = {}
    exec(compile(source, "solution.py", "exec"), namespace)  # noqa: S102 - the instructor's own master, edited here
    return {q.function: namespace[q.function] for q in COURSE.assignment(assignment_id).questions}


def failing_tests(assignment_id: str, functions: dict, seed: int) -> set[str]:
    assignment = COURSE.assignment(assignment_id)
    results = run_suite(hidden_test_files(assignment), InProcessSubmission(functions), TOLERANCE, seed=seed,
                        questions=assignment.functions, upstream=call_graph(assignment.functions))
    return {r.name for r in results if not r.passed}


@pytest.mark.parametrize("name", sorted(WRONG_VERSIONS))
def test_the_new_input_class_catches_its_wrong_version(name):
    assignment_id, edit, test, _ = WRONG_VERSIONS[name]
    wrong = functions_of(assignment_id, edit)
    for seed in SEEDS:
        assert test in failing_tests(assignment_id, wrong, seed), (name, seed)


@pytest.mark.parametrize("assignment_id", sorted({v[0] for v in WRONG_VERSIONS.values()}))
def test_the_solution_passes_every_new_test(assignment_id):
    new = {v[2] for v in WRONG_VERSIONS.values() if v[0] == assignment_id}
    for seed in SEEDS:
        assert not new & failing_tests(assignment_id, functions_of(assignment_id, None), seed)
