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
HW1, HW2, HW3, HW4 = "hw1_scaled_attention", "hw2_rnn_attention", "hw3_multi_head", "hw4_gradients"
#: The float conventions turned wrong: float64 kept, everything else (integers) made float32.
F64_KEPT_ELSE_F32 = ("a if a.dtype == np.float32 else a.astype(np.float64)", "a if a.dtype == np.float64 else a.astype(np.float32)")


def _integers_to_float32(names: str) -> tuple[str, str]:
    """The edit that computes integer ``names`` (e.g. ``"s, H"``) in float32 instead of float64."""
    return tuple(f"({side} for a in ({names}))" for side in F64_KEPT_ELSE_F32)


#: (assignment, edit of the solution source (old, new), the test that must catch it, its question[, more edits]).
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
    # --- issue 25's audit: one wrong version per new input class ---------------------------------------------
    "softmax takes a middle axis for the last": (
        HW1, ("    largest = np.max(x, axis=axis, keepdims=True)",
              "    axis = -1 if 0 < axis % x.ndim < x.ndim - 1 else axis\n    largest = np.max(x, axis=axis, keepdims=True)"),
        "test_axis_argument", "softmax"),
    "softmax counts a negative axis from the front": (
        HW1, ("    largest = np.max(x, axis=axis, keepdims=True)",
              "    axis = -axis if axis < -1 else axis\n    largest = np.max(x, axis=axis, keepdims=True)"),
        "test_axis_argument", "softmax"),
    "attention transposes all of K when Q is 2-D": (
        HW1, ("    K_T = np.swapaxes(K, -1, -2)  #", "    K_T = K.T if Q.ndim == 2 else np.swapaxes(K, -1, -2)  #"),
        "test_unbatched_queries_against_batched_keys", "scaled_dot_product_attention"),
    "attention computes integers in float32": (
        HW1, _integers_to_float32("Q, K, V"), "test_integer_inputs", "scaled_dot_product_attention"),
    "dot_score broadcasts s to H's batch": (
        HW2, ("    scores = H @ s_column  #", "    scores = H @ np.broadcast_to(s_column, H.shape[:-2] + s_column.shape[-2:])  #"),
        "test_dot_batch_axes_in_one_argument", "dot_score"),
    "general_score broadcasts s to H's batch": (
        HW2, ("    query = s @ W_a  #", "    query = np.broadcast_to(s, H.shape[:-2] + s.shape[-1:]) @ W_a  #"),
        "test_general_batch_axes_in_one_argument", "general_score"),
    "additive_score broadcasts s to H's batch": (
        HW2, ("    decoder_part = s @ W_a.T  #", "    decoder_part = np.broadcast_to(s, H.shape[:-2] + s.shape[-1:]) @ W_a.T  #"),
        "test_additive_batch_axes_in_one_argument", "additive_score"),
    "concat_score broadcasts s to H's batch": (
        HW2, ("    decoder_part = (s @ W_s.T)", "    decoder_part = (np.broadcast_to(s, H.shape[:-2] + s.shape[-1:]) @ W_s.T)"),
        "test_concat_batch_axes_in_one_argument", "concat_score"),
    "dot_score squeezes its scores": (
        HW2, ("    return scores[..., 0]  #", "    return np.squeeze(scores)  #"), "test_dot_batch_of_one", "dot_score"),
    "general_score computes integers in float32": (
        HW2, _integers_to_float32("s, H, W_a"), "test_general_integers", "general_score"),
    "concat_score computes integers in float32": (
        HW2, _integers_to_float32("s, H, W_a, v_a"), "test_concat_integers", "concat_score"),
    "context returns alpha stretched to H's batch": (
        HW2, ("    return context[..., 0, :], alpha  #",
              "    return context[..., 0, :], np.broadcast_to(alpha, np.broadcast_shapes(alpha.shape, H.shape[:-1]))  #"),
        "test_shared_scores_against_batched_states", "attention_context"),
    "context squeezes its outputs": (
        HW2, ("    return context[..., 0, :], alpha  #", "    return np.squeeze(context[..., 0, :]), np.squeeze(alpha)  #"),
        "test_a_batch_of_one", "attention_context"),
    "context computes integers in float32": (
        HW2, _integers_to_float32("scores, H"), "test_integer_inputs", "attention_context"),
    "split_heads computes integers in float32": (
        HW3, ("        X = X.astype(np.float64)  #", "        X = X if X.dtype.kind == 'f' else X.astype(np.float32)  #"),
        "test_split_integers", "split_heads"),
    "merge_heads squeezes its result": (
        HW3, ("    return per_position.reshape(*batch, n, num_heads * d_head)",
              "    return np.squeeze(per_position.reshape(*batch, n, num_heads * d_head))"),
        "test_merge_batch_of_one", "merge_heads"),
    "multi-head attention broadcasts X_kv to X_q's batch": (
        HW3, ("    K = split_heads(X_kv @ W_k, num_heads)",
              "    K = split_heads(np.broadcast_to(X_kv, X_q.shape[:-2] + X_kv.shape[-2:]) @ W_k, num_heads)"),
        "test_batch_axes_in_one_argument", "multi_head_attention"),
    "multi-head attention with an additive -1e4 mask": (
        HW3, ("            scores = np.where(allowed, scores, -np.inf)  #", "            scores = scores + np.where(allowed, 0.0, -1e4)  #"),
        "test_padded_keys_may_hold_huge_scores", "multi_head_attention"),
    "multi-head attention computes integers in float32": (
        HW3, F64_KEPT_ELSE_F32, "test_integer_inputs", "multi_head_attention"),
    "multi-head attention squeezes its outputs": (
        HW3, ("    return Y, A\n", "    return np.squeeze(Y), np.squeeze(A)\n"), "test_a_batch_of_one", "multi_head_attention"),
    "softmax_backward squeezes its result": (
        HW4, ("    return A * (dA - weighted_mean)  #", "    return np.squeeze(A * (dA - weighted_mean))  #"),
        "test_size_one_axes_are_kept", "softmax_backward"),
    "softmax_backward takes a negative axis for the last": (
        HW4, ("np.sum(A * dA, axis=axis, keepdims=True)", "np.sum(A * dA, axis=-1 if axis < 0 else axis, keepdims=True)"),
        "test_middle_axis", "softmax_backward"),
    "softmax_backward computes an integer dA in float32": (
        HW4, ("    dA = dA if dA.dtype == np.float32 else dA.astype(np.float64)",
              "    dA = dA if dA.dtype.kind == 'f' else dA.astype(np.float32)\n    A = A.astype(dA.dtype)"),
        "test_integer_upstream_gradient", "softmax_backward"),
    "backward never sums dQ back": (
        HW4, ("    return sum_to_shape(dQ, Q.shape),", "    return dQ,"),
        "test_unbatched_queries_against_batched_keys", "scaled_dot_product_attention_backward"),
    "backward reshapes dA to A's shape": (
        HW4, ("    A, dA = np.broadcast_arrays(A, dA)", "    dA = dA.reshape(A.shape)"),
        "test_unbatched_weights_against_batched_values", "scaled_dot_product_attention_backward"),
    "backward returns each gradient in its input's dtype": (
        HW4, ("    Q, K, V, A, dZ = (x if",
              "    dtypes = [np.asarray(x).dtype for x in (Q, K, V)]\n    Q, K, V, A, dZ = (x if"),
        "test_integer_inputs", "scaled_dot_product_attention_backward",
        ("    return sum_to_shape(dQ, Q.shape), sum_to_shape(dK, K.shape), sum_to_shape(dV, V.shape)",
         "    return tuple(sum_to_shape(g, x.shape).astype(t) for g, x, t in zip((dQ, dK, dV), (Q, K, V), dtypes))")),
}


@functools.lru_cache(maxsize=None)
def solution_source(assignment_id: str) -> str:
    assignment = COURSE.assignment(assignment_id)
    return keep_solutions((CourseDirectory.of().solutions / assignment.id / assignment.module).read_text(encoding="utf-8"))


def functions_of(assignment_id: str, *edits: tuple[str, str]) -> dict:
    """The solution's graded functions, with ``edits`` applied to its source (trusted: the instructor's master)."""
    source = solution_source(assignment_id)
    for old, new in edits:
        assert source.count(old) >= 1, f"the edit {old!r} no longer applies to the solution"
        source = source.replace(old, new, 1)
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
    assignment_id, edit, test, _, *more = WRONG_VERSIONS[name]
    wrong = functions_of(assignment_id, edit, *more)
    for seed in SEEDS:
        assert test in failing_tests(assignment_id, wrong, seed), (name, seed)


@pytest.mark.parametrize("assignment_id", sorted({v[0] for v in WRONG_VERSIONS.values()}))
def test_the_solution_passes_every_new_test(assignment_id):
    new = {v[2] for v in WRONG_VERSIONS.values() if v[0] == assignment_id}
    for seed in SEEDS:
        assert not new & failing_tests(assignment_id, functions_of(assignment_id), seed)
