"""Public checks for hw1: shapes and small known cases. The thorough tests are hidden."""

import math
from pathlib import Path

import numpy as np
import pytest

from checklib import expect_array, expect_case, expect_rows_sum_to_one, expect_shape, expect_tuple, public_case_params

#: The chapter's worked example: 3 one-hot tokens with d_model = 4 and identity projections.
X_EXAMPLE = np.eye(3, 4)
DIAGONAL = math.exp(0.5) / (math.exp(0.5) + 2)  # softmax([0.5, 0, 0])[0] = 0.4519
OFF_DIAGONAL = 1 / (math.exp(0.5) + 2)  # 0.2741
EXAMPLE_WEIGHTS = np.full((3, 3), OFF_DIAGONAL) + np.eye(3) * (DIAGONAL - OFF_DIAGONAL)
#: Loose bound for the variance check: 4,000 samples put the estimates within a few percent (6 standard errors).
VARIANCE_RELATIVE_SLACK = 0.15


@pytest.mark.question("softmax")
def test_softmax_of_the_worked_example_row(submission):
    """softmax([0.5, 0, 0]) is [0.4519, 0.2741, 0.2741]."""
    weights = submission.softmax(np.array([0.5, 0.0, 0.0]))
    expect_array(weights, [DIAGONAL, OFF_DIAGONAL, OFF_DIAGONAL], "softmax([0.5, 0, 0])")


@pytest.mark.question("softmax")
def test_softmax_normalises_each_row_of_a_matrix(submission):
    """softmax of a (2, 3) matrix keeps the shape and each row sums to 1."""
    scores = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    weights = submission.softmax(scores)
    expect_shape(weights, (2, 3), "softmax of a (2, 3) matrix")
    expect_rows_sum_to_one(weights, "softmax of a (2, 3) matrix")
    expect_array(weights[1], np.full(3, 1 / 3), "softmax([0, 0, 0])")


@pytest.mark.question("softmax")
def test_softmax_does_not_overflow(submission):
    """softmax([1000, 1000]) is [0.5, 0.5], not NaN."""
    expect_array(submission.softmax(np.array([1000.0, 1000.0])), [0.5, 0.5], "softmax([1000, 1000])")


@pytest.mark.question("causal_mask")
def test_causal_mask_of_three(submission):
    """causal_mask(3) lets query i see keys 0..i."""
    expected = np.array([[True, False, False], [True, True, False], [True, True, True]])
    expect_array(submission.causal_mask(3), expected, "causal_mask(3)")


@pytest.mark.question("scaled_dot_product_attention")
def test_attention_on_the_worked_example(submission):
    """The 3-token example: weights 0.4519 on the diagonal, 0.2741 elsewhere; Z = A V."""
    Z, A = expect_tuple(submission.scaled_dot_product_attention(X_EXAMPLE, X_EXAMPLE, X_EXAMPLE), 2, "attention(X, X, X)")
    expect_array(A, EXAMPLE_WEIGHTS, "A for the worked example")
    expect_array(Z, EXAMPLE_WEIGHTS @ X_EXAMPLE, "Z for the worked example")


@pytest.mark.question("scaled_dot_product_attention")
def test_attention_shapes_with_d_v_unlike_d_k(submission):
    """Q (2, 4), K (3, 4), V (3, 5) give Z (2, 5) and A (2, 3)."""
    rng = np.random.default_rng(0)
    Q, K, V = rng.standard_normal((2, 4)), rng.standard_normal((3, 4)), rng.standard_normal((3, 5))
    Z, A = expect_tuple(submission.scaled_dot_product_attention(Q, K, V), 2, "attention(Q, K, V)")
    expect_shape(A, (2, 3), "A")
    expect_shape(Z, (2, 5), "Z")
    expect_rows_sum_to_one(A, "A")


@pytest.mark.question("scaled_dot_product_attention")
def test_causal_mask_blocks_later_keys(submission):
    """With a causal mask, the first query attends only to the first key."""
    mask = np.tril(np.ones((3, 3), dtype=bool))
    _, A = expect_tuple(submission.scaled_dot_product_attention(X_EXAMPLE, X_EXAMPLE, X_EXAMPLE, mask), 2, "masked attention")
    expect_array(A[0], [1.0, 0.0, 0.0], "first row of A under a causal mask")


@pytest.mark.question("dot_product_variance")
def test_variance_is_close_to_d_k_then_one(submission):
    """Var(q.k) is about d_k = 16, and about 1 after dividing by sqrt(d_k)."""
    d_k = 16
    var_raw, var_scaled = expect_tuple(
        submission.dot_product_variance(d_k, 4_000, np.random.default_rng(0)), 2, "dot_product_variance"
    )
    expect_array(var_raw, d_k, "Var(q.k) for d_k = 16", rtol=VARIANCE_RELATIVE_SLACK)
    expect_array(var_scaled, 1.0, "Var(q.k / sqrt(d_k)) for d_k = 16", rtol=VARIANCE_RELATIVE_SLACK)


#: Random batched cases with the reference's answers, written by `attn-course build`.
CASES = Path(__file__).with_name("public_cases.npz")


@pytest.mark.parametrize("case", public_case_params(CASES))
def test_random_public_case(submission, case):
    """A random batched case (d_k other than 4, non-symmetric inputs) matches the reference's answer."""
    expect_case(submission, case)
