"""Hidden tests of softmax_backward (hw4, question 1)."""

import numpy as np
import pytest

from attn_reference import numerical_gradient, softmax
from autograder.grade.compare import Tolerance, first_mismatch
from autograder.grade.expect import expect, expect_dtype, expect_reference, float32_tolerance

question = pytest.mark.question("softmax_backward")
FUNCTION = "softmax_backward"
#: Centred differences with eps = 1e-5 on values of order 1 are good to about 1e-9.
NUMERICAL_TOLERANCE = Tolerance(rtol=1e-5, atol=1e-7)


def _weights_and_upstream(seed: int, shape: tuple, axis: int = -1, dtype=np.float64):
    rng = np.random.default_rng(seed)
    weights = softmax(2 * rng.standard_normal(shape), axis=axis)  # A = softmax(S) along axis
    return weights.astype(dtype), rng.standard_normal(shape).astype(dtype)  # A, dA


@question
def test_row_worked_out_by_hand(submission, tol):
    """A = [0.5, 0.25, 0.25] and dA = [1, 0, 0] give dS = [0.25, -0.125, -0.125]."""
    expect_reference(submission, tol, FUNCTION, np.array([0.5, 0.25, 0.25]), np.array([1.0, 0.0, 0.0]), what="softmax_backward of one row")


@question(weight=2)
def test_random_batched_last_axis(submission, tol):
    """Weights of a batched (2, 3, 5) softmax over the last axis."""
    expect_reference(submission, tol, FUNCTION, *_weights_and_upstream(81, (2, 3, 5)), what="softmax_backward of a (2, 3, 5) batch")


@question
def test_square_rows(submission, tol):
    """A (4, 4) matrix of rows: the sum must keep its axis to broadcast back along the row."""
    expect_reference(submission, tol, FUNCTION, *_weights_and_upstream(82, (4, 4)), what="softmax_backward of a (4, 4) matrix")


@question
def test_axis_0(submission, tol):
    """axis=0: every column of a (4, 3) matrix is its own softmax."""
    expect_reference(submission, tol, FUNCTION, *_weights_and_upstream(83, (4, 3), axis=0), axis=0, what="softmax_backward(A, dA, axis=0)")


@question
def test_middle_axis(submission, tol):
    """axis=1 of a (2, 5, 3) array."""
    expect_reference(submission, tol, FUNCTION, *_weights_and_upstream(84, (2, 5, 3), axis=1), axis=1, what="softmax_backward(A, dA, axis=1)")


@question
def test_masked_weights_get_exactly_zero_gradient(submission, tol):
    """Weights that are exactly 0 (masked scores) get a gradient of exactly 0."""
    scores = np.array([[0.3, -np.inf, 1.2, -np.inf], [-np.inf, 2.0, 0.1, 0.4]])
    weights = softmax(scores)
    upstream = np.random.default_rng(85).standard_normal(weights.shape)
    actual = expect_reference(submission, tol, FUNCTION, weights, upstream, what="softmax_backward with masked weights")
    expect(np.all(np.asarray(actual)[weights == 0] == 0), "softmax_backward: masked weights (exactly 0) should get a gradient of exactly 0")


@question
def test_float32_stays_float32(submission, tol):
    """float32 weights and upstream gradient give a float32 dS."""
    inputs = _weights_and_upstream(86, (3, 6), dtype=np.float32)
    actual = expect_reference(submission, float32_tolerance(tol), FUNCTION, *inputs, what="softmax_backward of float32 input")
    expect_dtype(actual, np.float32, "softmax_backward of float32 input")


@question(weight=2)
def test_agrees_with_centred_differences(submission, tol):
    """dS equals the numerical gradient of L(S) = sum(softmax(S) * G)."""
    rng = np.random.default_rng(87)
    scores, G = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 3, 4))
    numerical = numerical_gradient(lambda s: np.sum(softmax(s) * G), scores)
    actual = np.asarray(submission.call(FUNCTION, softmax(scores), G))
    expect(actual.shape == scores.shape, f"softmax_backward: expected shape {scores.shape}, got {actual.shape}")
    wrong = first_mismatch(numerical, actual.astype(np.float64), NUMERICAL_TOLERANCE)
    expect(not wrong, f"softmax_backward differs from the centred-difference gradient of sum(softmax(S) * G) {wrong}")
