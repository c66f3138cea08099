"""The instructor solutions agree with attn_reference on random inputs.

The solutions are written independently for teaching; these tests make sure the two
implementations of the same contract never drift apart. What is checked comes from
course.yml: every question, and every helper a master gives its students that
attn_reference also exports (hw4's forward pass, for example). How a function is checked
lives in CHECKS, keyed by its name; a question without a check fails, so a new
assignment cannot go unchecked.
"""

import types
from typing import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attn_reference as ref
from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.paths import SOLUTIONS_DIR
from tests import strategies as S

COURSE = load_course()
RTOL, ATOL = 1e-10, 1e-12
FLOAT32_RTOL, FLOAT32_ATOL = 1e-4, 1e-6
#: float32 attention gradients carry an absolute error that grows with |dZ V^T| (see
#: tests/attn_reference/test_gradients.py).
FLOAT32_GRADIENT_ATOL = 5e-4
#: The fill many PyTorch implementations give masked scores instead of -inf.
FINITE_FILL = -1e9
EXAMPLES = 25


def _solution(assignment_id: str) -> types.ModuleType:
    assignment = COURSE.assignment(assignment_id)
    text = (SOLUTIONS_DIR / assignment_id / assignment.module).read_text(encoding="utf-8")
    module = types.ModuleType(assignment.module_name)
    exec(compile(keep_solutions(text), assignment.module, "exec"), module.__dict__)
    return module


SOLUTIONS = {a.id: _solution(a.id) for a in COURSE.assignments}
dtypes = st.sampled_from([np.float64, np.float32])
batches = st.lists(st.integers(1, 3), min_size=0, max_size=2).map(tuple)
sizes = st.integers(1, 5)
seeds = st.integers(0, 2**16)


def _close(actual, expected, dtype, float32_atol: float = FLOAT32_ATOL):
    rtol, atol = (FLOAT32_RTOL, float32_atol) if dtype == np.float32 else (RTOL, ATOL)
    actual_parts = actual if isinstance(actual, tuple) else (actual,)
    expected_parts = expected if isinstance(expected, tuple) else (expected,)
    assert len(actual_parts) == len(expected_parts)
    for a, e in zip(actual_parts, expected_parts):
        assert np.asarray(a).dtype == np.asarray(e).dtype
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)


# --- one check per function: (solution module, hypothesis draw) -> None ----------------------


def check_softmax(solution, draw):
    dtype, seed, axis = draw(dtypes), draw(seeds), draw(st.integers(-2, 1))
    x = np.random.default_rng(seed).standard_normal((*draw(batches), draw(sizes), draw(sizes))).astype(dtype) * 50
    _close(solution.softmax(x, axis=axis), ref.softmax(x, axis=axis), dtype)


def check_causal_mask(solution, draw):
    n = draw(st.integers(1, 6))
    np.testing.assert_array_equal(solution.causal_mask(n), ref.causal_mask(n))


def _attention_inputs(draw):
    batch, l_q, l_k, d_k, d_v, dtype = draw(batches), draw(sizes), draw(sizes), draw(sizes), draw(sizes), draw(dtypes)
    rng = np.random.default_rng(draw(seeds))
    Q = rng.standard_normal((*batch, l_q, d_k)).astype(dtype)
    K = rng.standard_normal((*batch, l_k, d_k)).astype(dtype)
    V = rng.standard_normal((*batch, l_k, d_v)).astype(dtype)
    mask = None
    if draw(st.booleans()):
        mask = rng.random((l_q, l_k)) < 0.5
        mask[:, 0] = True
    return Q, K, V, mask, dtype


def check_scaled_dot_product_attention(solution, draw):
    Q, K, V, mask, dtype = _attention_inputs(draw)
    _close(solution.scaled_dot_product_attention(Q, K, V, mask), ref.scaled_dot_product_attention(Q, K, V, mask), dtype)


def check_dot_product_variance(solution, draw):
    d_k, seed = draw(st.sampled_from([1, 16, 100])), draw(seeds)
    rng = np.random.default_rng
    assert solution.dot_product_variance(d_k, 500, rng(seed)) == ref.dot_product_variance(d_k, 500, rng(seed))


def _rnn_inputs(draw):
    batch, t, d_s, d_h, d_a, dtype = draw(batches), draw(sizes), draw(sizes), draw(sizes), draw(sizes), draw(dtypes)
    rng = np.random.default_rng(draw(seeds))
    s = rng.standard_normal((*batch, d_s)).astype(dtype)
    H = rng.standard_normal((*batch, t, d_h)).astype(dtype)
    W, U, v = (rng.standard_normal(shape).astype(dtype) for shape in ((d_a, d_s), (d_a, d_h), (d_a,)))
    s_h = rng.standard_normal((*batch, d_h)).astype(dtype)
    return s, H, W, U, v, s_h, dtype


def check_additive_score(solution, draw):
    s, H, W, U, v, _, dtype = _rnn_inputs(draw)
    _close(solution.additive_score(s, H, W, U, v), ref.additive_score(s, H, W, U, v), dtype)


def check_dot_score(solution, draw):
    _, H, _, _, _, s_h, dtype = _rnn_inputs(draw)
    _close(solution.dot_score(s_h, H), ref.dot_score(s_h, H), dtype)


def check_general_score(solution, draw):
    s, H, W, U, _, _, dtype = _rnn_inputs(draw)
    _close(solution.general_score(s, H, W.T @ U), ref.general_score(s, H, W.T @ U), dtype)


def check_concat_score(solution, draw):
    s, H, W, U, v, _, dtype = _rnn_inputs(draw)
    concat_W = np.concatenate([W, U], axis=1)
    _close(solution.concat_score(s, H, concat_W, v), ref.concat_score(s, H, concat_W, v), dtype)


def check_attention_context(solution, draw):
    _, H, _, _, _, s_h, dtype = _rnn_inputs(draw)
    t = H.shape[-2]
    scores = ref.dot_score(s_h, H)
    mask = np.arange(t) < max(1, t - 1)
    _close(solution.attention_context(scores, H, mask), ref.attention_context(scores, H, mask), dtype)


def _heads_inputs(draw):
    batch, n_q, n_kv, heads, d_head, dtype = (
        draw(batches), draw(sizes), draw(sizes), draw(st.sampled_from([1, 2, 4])), draw(st.integers(1, 3)), draw(dtypes)
    )
    rng = np.random.default_rng(draw(seeds))
    d_model = heads * d_head
    X_q = rng.standard_normal((*batch, n_q, d_model)).astype(dtype)
    X_kv = rng.standard_normal((*batch, n_kv, d_model)).astype(dtype)
    weights = [rng.standard_normal((d_model, d_model)).astype(dtype) for _ in range(4)]
    return X_q, X_kv, weights, heads, dtype


def check_split_heads(solution, draw):
    X_q, _, _, heads, dtype = _heads_inputs(draw)
    _close(solution.split_heads(X_q, heads), ref.split_heads(X_q, heads), dtype)


def check_merge_heads(solution, draw):
    X_q, _, _, heads, dtype = _heads_inputs(draw)
    _close(solution.merge_heads(ref.split_heads(X_q, heads)), X_q, dtype)


def check_multi_head_attention(solution, draw):
    X_q, X_kv, weights, heads, dtype = _heads_inputs(draw)
    n_q, n_kv = X_q.shape[-2], X_kv.shape[-2]
    mask = np.tril(np.ones((n_q, n_kv), dtype=bool)) | (np.arange(n_kv) == 0)
    expected = ref.multi_head_attention(X_q, X_kv, *weights, heads, mask)
    _close(solution.multi_head_attention(X_q, X_kv, *weights, heads, mask), expected, dtype)


def check_softmax_backward(solution, draw):
    dtype, axis = draw(dtypes), draw(st.integers(-2, 1))
    rng = np.random.default_rng(draw(seeds))
    shape = (*draw(batches), draw(sizes), draw(sizes))
    A = ref.softmax(rng.standard_normal(shape).astype(dtype) * 3, axis=axis)
    dA = rng.standard_normal(shape).astype(dtype)
    _close(solution.softmax_backward(A, dA, axis=axis), ref.softmax_backward(A, dA, axis=axis), dtype)


def check_scaled_dot_product_attention_backward(solution, draw):
    p = draw(S.attention_backward_inputs())
    _, A = ref.scaled_dot_product_attention(p.Q, p.K, p.V, p.mask)
    expected = ref.scaled_dot_product_attention_backward(p.Q, p.K, p.V, A, p.dZ, p.mask)
    actual = solution.scaled_dot_product_attention_backward(p.Q, p.K, p.V, A, p.dZ, p.mask)
    _close(actual, expected, p.Q.dtype, float32_atol=FLOAT32_GRADIENT_ATOL)
    # A padding query (no allowed key) whose weights a forward pass with a -1e9 fill made uniform.
    scores = p.Q @ np.swapaxes(p.K, -1, -2) / np.sqrt(p.Q.shape[-1]).astype(p.Q.dtype)  # (*score_batch, L_q, L_k)
    padded = np.ones(scores.shape, dtype=bool) if p.mask is None else np.broadcast_to(p.mask, scores.shape).copy()
    padded[..., 0, :] = False
    A_filled = ref.softmax(np.where(padded, scores, FINITE_FILL).astype(p.Q.dtype))
    expected = ref.scaled_dot_product_attention_backward(p.Q, p.K, p.V, A_filled, p.dZ, padded)
    actual = solution.scaled_dot_product_attention_backward(p.Q, p.K, p.V, A_filled, p.dZ, padded)
    _close(actual, expected, p.Q.dtype, float32_atol=FLOAT32_GRADIENT_ATOL)


def check_softmax_gradient_norm(solution, draw):
    d_k, n_keys, seed, scaled = draw(st.sampled_from([1, 16, 100])), draw(st.integers(1, 9)), draw(seeds), draw(st.booleans())
    rng = np.random.default_rng
    actual = solution.softmax_gradient_norm(d_k, n_keys, 300, rng(seed), scaled=scaled)
    assert isinstance(actual, float)
    _close(actual, ref.softmax_gradient_norm(d_k, n_keys, 300, rng(seed), scaled=scaled), np.float64)


def check_numerical_gradient(solution, draw):
    rng = np.random.default_rng(draw(seeds))
    x, G = rng.standard_normal((2, *draw(batches), draw(sizes)))

    def f(y):
        return np.sum(np.sin(y) * G)

    _close(solution.numerical_gradient(f, x), ref.numerical_gradient(f, x), np.float64)


def check_relative_error(solution, draw):
    rng = np.random.default_rng(draw(seeds))
    a, b = rng.standard_normal((2, *draw(batches), draw(sizes))) * draw(st.sampled_from([1e-12, 1.0, 1e6]))
    assert solution.relative_error(a, b) == pytest.approx(ref.relative_error(a, b), rel=RTOL)
    assert solution.relative_error(a, a) == ref.relative_error(a, a) == 0.0


CHECKS: dict[str, Callable] = {
    name.removeprefix("check_"): check for name, check in list(globals().items()) if name.startswith("check_")
}


def _checked_functions(assignment) -> list[str]:
    """The questions, then the master's other functions that attn_reference also exports."""
    module = SOLUTIONS[assignment.id]
    given = [name for name in ref.__all__ if callable(getattr(module, name, None)) and name not in assignment.functions]
    return [*assignment.functions, *given]


CASES = [(a.id, function) for a in COURSE.assignments for function in _checked_functions(a)]


def _on_public_cases(function: str):
    """The check of a function without one of its own here: solution and reference agree on its public cases."""
    from autograder.build.public_cases import Seed, release_cases

    assignment = next(a for a in COURSE.assignments if function in a.functions)
    cases = [c for c in release_cases(COURSE.layout, assignment) if c.function == function]
    assert cases, f"{function} has neither a check here nor a public case"

    def check(solution, draw):
        for case in cases:
            made = lambda: [np.random.default_rng(a.value) if isinstance(a, Seed) else a for a in case.args]  # noqa: E731
            expected = getattr(ref, function)(*made(), **case.kwargs)
            _close(getattr(solution, function)(*made(), **case.kwargs), expected, np.asarray(
                expected[0] if isinstance(expected, tuple) else expected).dtype)
    return check


@pytest.mark.parametrize(("assignment_id", "function"), CASES)
@settings(max_examples=EXAMPLES, deadline=None)
@given(data=st.data())
def test_solution_agrees_with_the_reference(assignment_id, function, data):
    check = CHECKS.get(function) or _on_public_cases(function)
    check(SOLUTIONS[assignment_id], data.draw)


def test_every_check_is_used():
    assert set(CHECKS) <= {function for _, function in CASES}
