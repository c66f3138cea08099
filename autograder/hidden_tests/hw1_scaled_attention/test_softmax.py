"""Hidden tests of softmax (hw1, question 1)."""

import numpy as np
import pytest

from autograder.grade.expect import expect_dtype, expect_reference, float32_tolerance

question = pytest.mark.question("softmax")
#: Magnitude at which an unshifted exp overflows float64.
HUGE = 1e4


@question
def test_worked_example_row(submission, tol):
    """softmax([0.5, 0, 0]) gives 0.4519 and 0.2741."""
    expect_reference(submission, tol, "softmax", np.array([0.5, 0.0, 0.0]), what="softmax of the worked example")


@question(weight=2)
def test_random_batched_last_axis(submission, tol):
    """softmax over the last axis of a batched (2, 3, 5) array."""
    x = np.random.default_rng(11).standard_normal((2, 3, 5)) * 3
    expect_reference(submission, tol, "softmax", x, what="softmax of a (2, 3, 5) array")


@question
def test_axis_argument(submission, tol):
    """softmax(x, axis=0) normalises the first axis."""
    x = np.random.default_rng(12).standard_normal((4, 3))
    expect_reference(submission, tol, "softmax", x, axis=0, what="softmax(x, axis=0) of a (4, 3) array")


@question(weight=2)
def test_stable_for_huge_scores(submission, tol):
    """softmax stays finite and correct for scores around +1e4."""
    x = HUGE + np.random.default_rng(13).standard_normal((3, 4))
    expect_reference(submission, tol, "softmax", x, what="softmax of scores near 1e4")


@question
def test_stable_for_very_negative_scores(submission, tol):
    """softmax has no 0/0 for scores around -1e4."""
    x = -HUGE + np.random.default_rng(14).standard_normal((3, 4))
    expect_reference(submission, tol, "softmax", x, what="softmax of scores near -1e4")


@question
def test_minus_infinity_gets_zero_weight(submission, tol):
    """Entries of -inf get weight exactly 0 when the row has a finite entry."""
    x = np.array([[0.3, -np.inf, 1.2], [-np.inf, 2.0, -np.inf]])
    expect_reference(submission, tol, "softmax", x, what="softmax with -inf entries")


@question
def test_float32_stays_float32(submission, tol):
    """float32 scores give float32 weights."""
    x = np.random.default_rng(15).standard_normal((2, 6)).astype(np.float32)
    actual = expect_reference(submission, float32_tolerance(tol), "softmax", x, what="softmax of float32 input")
    expect_dtype(actual, np.float32, "softmax of float32 input")
