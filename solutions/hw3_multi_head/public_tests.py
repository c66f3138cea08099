"""Public checks for hw3: shapes and small known cases. The thorough tests are hidden."""

import math
from pathlib import Path

import numpy as np
import pytest

from checklib import expect_array, expect_case, expect_shape, expect_tuple, public_case_params

#: Two positions, d_model = 4, features numbered so each head's slice is easy to see.
X = np.arange(8.0).reshape(2, 4)  # (n, d_model)
HEADS = 2


@pytest.mark.question("split_heads")
def test_split_heads_gives_each_head_its_slice(submission):
    """Head 0 gets features 0-1 of every position, head 1 features 2-3: shape (2, 2, 2)."""
    expected = np.stack([X[:, 0:2], X[:, 2:4]])  # (h, n, d_head)
    expect_array(submission.split_heads(X, HEADS), expected, "split_heads(X, 2)")


@pytest.mark.question("split_heads")
def test_split_heads_keeps_batch_dimensions(submission):
    """A (3, 5, 6) input with 3 heads becomes (3, 3, 5, 2)."""
    expect_shape(submission.split_heads(np.zeros((3, 5, 6)), 3), (3, 3, 5, 2), "split_heads of (3, 5, 6)")


@pytest.mark.question("merge_heads")
def test_merge_heads_concatenates_the_heads(submission):
    """Merging the per-head slices gives back X."""
    per_head = np.stack([X[:, 0:2], X[:, 2:4]])  # (h, n, d_head)
    expect_array(submission.merge_heads(per_head), X, "merge_heads")


@pytest.mark.question("multi_head_attention")
def test_one_head_with_identity_weights_is_plain_attention(submission):
    """One head, identity projections: Y = softmax(X X^T / sqrt(d_model)) X."""
    X_tokens = np.eye(3, 4)
    scores = X_tokens @ X_tokens.T / math.sqrt(4)
    weights = np.exp(scores) / np.exp(scores).sum(axis=-1, keepdims=True)
    identity = np.eye(4)
    Y, A = expect_tuple(
        submission.multi_head_attention(X_tokens, X_tokens, identity, identity, identity, identity, 1), 2, "multi_head_attention"
    )
    expect_array(A, weights[None], "A with one head")
    expect_array(Y, weights @ X_tokens, "Y with one head")


@pytest.mark.question("multi_head_attention")
def test_multi_head_shapes(submission):
    """Batch 2, n_q 3, n_kv 5, d_model 8, 4 heads: Y (2, 3, 8) and A (2, 4, 3, 5)."""
    rng = np.random.default_rng(2)
    weights = [rng.standard_normal((8, 8)) for _ in range(4)]
    Y, A = expect_tuple(
        submission.multi_head_attention(rng.standard_normal((2, 3, 8)), rng.standard_normal((2, 5, 8)), *weights, 4),
        2,
        "multi_head_attention",
    )
    expect_shape(Y, (2, 3, 8), "Y")
    expect_shape(A, (2, 4, 3, 5), "A")


#: Random batched cases with the reference's answers, written by `attn-course build`.
CASES = Path(__file__).with_name("public_cases.npz")


@pytest.mark.parametrize("case", public_case_params(CASES))
def test_random_public_case(submission, case):
    """A random batched case (d_k other than 4, non-symmetric inputs) matches the reference's answer."""
    expect_case(submission, case)
