"""Hidden tests of causal_mask (hw1, question 2)."""

import numpy as np
import pytest

from autograder.grade.expect import expect_reference
from autograder.i18n import msg

question = pytest.mark.question("causal_mask")
#: Ranges the sequence length is drawn from: a short, a middling and a long one, and a document's (longer than any
#: fixed buffer of 512 positions a mask might be cut from).
LENGTHS = {"short": (2, 3), "middling": (5, 6, 7), "long": (9, 11, 12), "document": (530, 641, 777)}


@question
def test_single_position(submission, tol):
    """causal_mask(1) is [[True]]."""
    expect_reference(submission, tol, "causal_mask", 1, what=msg("causal_mask(1)"))


@question
@pytest.mark.parametrize("length", sorted(LENGTHS))
def test_lower_triangle(submission, tol, draw, length):
    """causal_mask(n) is True exactly where key <= query, as booleans."""
    n = draw.size(LENGTHS[length])
    expect_reference(submission, tol, "causal_mask", n, what=f"causal_mask({n})")


@question
def test_a_numpy_integer_length(submission, tol, draw):
    """A length given as a numpy integer (what ``x.shape[0]`` of a saved array or ``np.arange`` yields) is a length."""
    n = np.int64(draw.size(LENGTHS["middling"]))
    expect_reference(submission, tol, "causal_mask", n, what=f"causal_mask(np.int64({n}))")
