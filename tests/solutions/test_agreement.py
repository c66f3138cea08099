"""The instructor solutions agree with attn_reference on random inputs.

The solutions are written independently for teaching; these tests make sure the two
implementations of the same contract never drift apart.
"""

import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attn_reference as ref
from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.paths import SOLUTIONS_DIR

COURSE = load_course()
RTOL, ATOL = 1e-10, 1e-12
FLOAT32_RTOL, FLOAT32_ATOL = 1e-4, 1e-6
EXAMPLES = 25


def _solution(assignment_id: str) -> types.ModuleType:
    assignment = COURSE.assignment(assignment_id)
    text = (SOLUTIONS_DIR / assignment_id / assignment.module).read_text(encoding="utf-8")
    module = types.ModuleType(assignment.module_name)
    exec(compile(keep_solutions(text), assignment.module, "exec"), module.__dict__)
    return module


HW1, HW2, HW3 = (_solution(a.id) for a in COURSE.assignments)
dtypes = st.sampled_from([np.float64, np.float32])
batches = st.lists(st.integers(1, 3), min_size=0, max_size=2).map(tuple)
sizes = st.integers(1, 5)


def _close(actual, expected, dtype):
    rtol, atol = (FLOAT32_RTOL, FLOAT32_ATOL) if dtype == np.float32 else (RTOL, ATOL)
    actual_parts = actual if isinstance(actual, tuple) else (actual,)
    expected_parts = expected if isinstance(expected, tuple) else (expected,)
    assert len(actual_parts) == len(expected_parts)
    for a, e in zip(actual_parts, expected_parts):
        assert np.asarray(a).dtype == np.asarray(e).dtype
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)


@settings(max_examples=EXAMPLES, deadline=None)
@given(batch=batches, l_q=sizes, l_k=sizes, d_k=sizes, d_v=sizes, dtype=dtypes, seed=st.integers(0, 2**16), masked=st.booleans())
def test_hw1_attention_agrees(batch, l_q, l_k, d_k, d_v, dtype, seed, masked):
    rng = np.random.default_rng(seed)
    Q = rng.standard_normal((*batch, l_q, d_k)).astype(dtype)
    K = rng.standard_normal((*batch, l_k, d_k)).astype(dtype)
    V = rng.standard_normal((*batch, l_k, d_v)).astype(dtype)
    mask = None
    if masked:
        mask = rng.random((l_q, l_k)) < 0.5
        mask[:, 0] = True
    _close(HW1.scaled_dot_product_attention(Q, K, V, mask), ref.scaled_dot_product_attention(Q, K, V, mask), dtype)
    _close(HW1.softmax(Q * 50, axis=-1), ref.softmax(Q * 50, axis=-1), dtype)


@pytest.mark.parametrize("n", [1, 2, 6])
def test_hw1_causal_mask_agrees(n):
    np.testing.assert_array_equal(HW1.causal_mask(n), ref.causal_mask(n))


@pytest.mark.parametrize("d_k", [1, 16, 100])
def test_hw1_variance_is_identical_for_the_same_seed(d_k):
    assert HW1.dot_product_variance(d_k, 500, np.random.default_rng(d_k)) == ref.dot_product_variance(d_k, 500, np.random.default_rng(d_k))


@settings(max_examples=EXAMPLES, deadline=None)
@given(batch=batches, t=sizes, d_s=sizes, d_h=sizes, d_a=sizes, dtype=dtypes, seed=st.integers(0, 2**16))
def test_hw2_scores_and_context_agree(batch, t, d_s, d_h, d_a, dtype, seed):
    rng = np.random.default_rng(seed)
    s = rng.standard_normal((*batch, d_s)).astype(dtype)
    H = rng.standard_normal((*batch, t, d_h)).astype(dtype)
    W, U, v = (rng.standard_normal(shape).astype(dtype) for shape in ((d_a, d_s), (d_a, d_h), (d_a,)))
    _close(HW2.additive_score(s, H, W, U, v), ref.additive_score(s, H, W, U, v), dtype)
    _close(HW2.general_score(s, H, W.T @ U), ref.general_score(s, H, W.T @ U), dtype)
    concat_W = np.concatenate([W, U], axis=1)
    _close(HW2.concat_score(s, H, concat_W, v), ref.concat_score(s, H, concat_W, v), dtype)
    s_h = rng.standard_normal((*batch, d_h)).astype(dtype)
    _close(HW2.dot_score(s_h, H), ref.dot_score(s_h, H), dtype)
    scores = ref.dot_score(s_h, H)
    mask = np.arange(t) < max(1, t - 1)
    _close(HW2.attention_context(scores, H, mask), ref.attention_context(scores, H, mask), dtype)


@settings(max_examples=EXAMPLES, deadline=None)
@given(batch=batches, n_q=sizes, n_kv=sizes, heads=st.sampled_from([1, 2, 4]), d_head=st.integers(1, 3), dtype=dtypes, seed=st.integers(0, 2**16))
def test_hw3_heads_and_multi_head_agree(batch, n_q, n_kv, heads, d_head, dtype, seed):
    rng = np.random.default_rng(seed)
    d_model = heads * d_head
    X_q = rng.standard_normal((*batch, n_q, d_model)).astype(dtype)
    X_kv = rng.standard_normal((*batch, n_kv, d_model)).astype(dtype)
    weights = [rng.standard_normal((d_model, d_model)).astype(dtype) for _ in range(4)]
    _close(HW3.split_heads(X_q, heads), ref.split_heads(X_q, heads), dtype)
    _close(HW3.merge_heads(ref.split_heads(X_q, heads)), X_q, dtype)
    mask = np.tril(np.ones((n_q, n_kv), dtype=bool)) | (np.arange(n_kv) == 0)
    _close(HW3.multi_head_attention(X_q, X_kv, *weights, heads, mask), ref.multi_head_attention(X_q, X_kv, *weights, heads, mask), dtype)
