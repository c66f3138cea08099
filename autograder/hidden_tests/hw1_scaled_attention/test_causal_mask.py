"""Hidden tests of causal_mask (hw1, question 2)."""

import pytest

from autograder.grade.expect import expect_reference

question = pytest.mark.question("causal_mask")


@question
@pytest.mark.parametrize("n", [1, 4, 7])
def test_lower_triangle(submission, tol, n):
    """causal_mask(n) is True exactly where key <= query, as booleans."""
    expect_reference(submission, tol, "causal_mask", n, what=f"causal_mask({n})")
