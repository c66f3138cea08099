"""Public checks for hw2: shapes and small known cases. The thorough tests are hidden."""

import math
from pathlib import Path

import numpy as np
import pytest

from checklib import expect_array, expect_case, expect_rows_sum_to_one, expect_shape, expect_tuple, public_case_params

#: A decoder state and three encoder states small enough to score by hand.
S = np.array([1.0, 2.0])
H = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
SWAP = np.array([[0.0, 1.0], [1.0, 0.0]])


@pytest.mark.question("additive_score")
def test_additive_score_by_hand(submission):
    """With identity W_a and U_a and v_a = [1, 1], e_j = tanh(s_1 + h_j1) + tanh(s_2 + h_j2)."""
    expected = [math.tanh(2) + math.tanh(2), math.tanh(1) + math.tanh(3), math.tanh(2) + math.tanh(3)]
    scores = submission.additive_score(S, H, np.eye(2), np.eye(2), np.ones(2))
    expect_array(scores, expected, "additive_score with identity weights")


@pytest.mark.question("additive_score")
def test_additive_score_shape_with_attention_size(submission):
    """d_s = 2, d_h = 3, d_a = 4 and T = 5 give one score per source position: shape (5,)."""
    rng = np.random.default_rng(1)
    scores = submission.additive_score(
        rng.standard_normal(2), rng.standard_normal((5, 3)),
        rng.standard_normal((4, 2)), rng.standard_normal((4, 3)), rng.standard_normal(4),
    )
    expect_shape(scores, (5,), "additive_score")


@pytest.mark.question("dot_score")
def test_dot_score_by_hand(submission):
    """s . h_j for s = [1, 2]: [1, 2, 3]."""
    expect_array(submission.dot_score(S, H), [1.0, 2.0, 3.0], "dot_score")


@pytest.mark.question("general_score")
def test_general_score_with_a_swap_matrix(submission):
    """With W_a swapping the two features, s^T W_a h_j = [2, 1, 3]."""
    expect_array(submission.general_score(S, H, SWAP), [2.0, 1.0, 3.0], "general_score")


@pytest.mark.question("concat_score")
def test_concat_score_by_hand(submission):
    """W_a = [I I] and v_a = [1, 1] make v_a . tanh(W_a [s; h_j]) = tanh(s_1 + h_j1) + tanh(s_2 + h_j2)."""
    W_a = np.hstack([np.eye(2), np.eye(2)])
    expected = [math.tanh(2) + math.tanh(2), math.tanh(1) + math.tanh(3), math.tanh(2) + math.tanh(3)]
    expect_array(submission.concat_score(S, H, W_a, np.ones(2)), expected, "concat_score")


@pytest.mark.question("attention_context")
def test_context_of_equal_scores_is_the_mean(submission):
    """Equal scores give equal weights, so c is the mean of the encoder states."""
    c, alpha = expect_tuple(submission.attention_context(np.zeros(3), H), 2, "attention_context")
    expect_array(alpha, np.full(3, 1 / 3), "alpha for equal scores")
    expect_array(c, H.mean(axis=0), "c for equal scores")


@pytest.mark.question("attention_context")
def test_context_ignores_padded_positions(submission):
    """A padding mask [1, 1, 0] gives the last state weight 0."""
    c, alpha = expect_tuple(submission.attention_context(np.zeros(3), H, np.array([1, 1, 0])), 2, "masked context")
    expect_array(alpha, [0.5, 0.5, 0.0], "alpha with the last position padded")
    expect_rows_sum_to_one(alpha, "alpha")


#: Random batched cases with the reference's answers, written by `attn-course build`.
CASES = Path(__file__).with_name("public_cases.npz")


@pytest.mark.parametrize("case", public_case_params(CASES))
def test_random_public_case(submission, case):
    """A random batched case (d_k other than 4, non-symmetric inputs) matches the reference's answer."""
    expect_case(submission, case)
