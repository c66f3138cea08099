"""Every graded function's hidden tests draw every input class that applies to it, on every seed.

The classes and when each applies are read from the reference and the assignment's conventions
(tests/hidden_tests/input_classes.py), so a new question is held to them too. The suites run
against the reference with a recording submission; a class drawn on some seeds only is missing.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from autograder.config import load_course
from autograder.engine import run_suite
from autograder.grade.api import hidden_test_files
from autograder.grade.carry import call_graph
from autograder.judge.claims import integer_sizes
from autograder.judge.compare import Tolerance, reference_function
from autograder.layout import CourseDirectory
from tests.hidden_tests import input_classes
from tests.hidden_tests.input_classes import RecordingSubmission

COURSE = load_course()
TOLERANCE = Tolerance(COURSE.defaults.rtol, COURSE.defaults.atol)
SEEDS = (1, 2, 3)
#: The causal_mask docstring's sentence on a bool n, in the reference, the solution and the release.
BOOL_SENTENCE = "A bool is not a length"


@functools.lru_cache(maxsize=None)
def recorded(assignment_id: str, seed: int) -> tuple:
    """Every call the assignment's hidden tests make on ``seed``, against the reference."""
    assignment = COURSE.assignment(assignment_id)
    files = hidden_test_files(assignment)
    submission = RecordingSubmission(files[0].parent)
    results = run_suite(files, submission, TOLERANCE, seed=seed, questions=assignment.functions,
                        upstream=call_graph(assignment.functions))
    assert all(r.passed for r in results), [r.name for r in results if not r.passed]
    return tuple(submission.calls)


@functools.lru_cache(maxsize=None)
def integers_documented(assignment_id: str) -> bool:
    assignment = COURSE.assignment(assignment_id)
    return input_classes.integers_documented(CourseDirectory.of().master(assignment).read_text(encoding="utf-8"))


def gaps(assignment_id: str, seed: int, without: tuple[str, ...] = ()) -> dict:
    """The classes each of the assignment's functions misses on ``seed`` (the calls of the tests ``without`` left out)."""
    calls = [call for call in recorded(assignment_id, seed) if call.test not in without]
    return input_classes.missing(calls, COURSE.assignment(assignment_id).functions, integers_documented(assignment_id), TOLERANCE)


@pytest.mark.parametrize("assignment_id", [a.id for a in COURSE.assignments])
def test_every_function_draws_every_class_that_applies_on_every_seed(assignment_id):
    for seed in SEEDS:
        assert gaps(assignment_id, seed) == {}, seed


#: (assignment, function, the hidden tests taken away, the class that must then be missing).
PLANTED = [
    ("hw1_scaled_attention", "softmax", ("test_axis_argument",), "axis middle -"),
    ("hw1_scaled_attention", "scaled_dot_product_attention", ("test_a_batch_of_one",), "size-1 axis"),
    ("hw1_scaled_attention", "scaled_dot_product_attention", ("test_unbatched_queries_against_batched_keys",), "Q unbatched alone"),
    ("hw1_scaled_attention", "scaled_dot_product_attention", ("test_padded_keys_may_hold_huge_scores",
                                                               "test_real_keys_far_below_zero_keep_all_the_weight"),
     "huge masked scores"),  # both draw masked scores far above the real ones' (an additive -1e4 mask fails them)
    ("hw2_rnn_attention", "dot_score", ("test_dot_batch_axes_in_one_argument",), "s batched alone"),
    ("hw2_rnn_attention", "general_score", ("test_general_integers",), "integer"),
    ("hw3_multi_head", "multi_head_attention", ("test_float32",), "float32"),
    ("hw4_gradients", "scaled_dot_product_attention_backward", ("test_weights_with_a_fully_masked_row",
                                                               "test_padding_queries_get_exactly_zero_gradient"), "fully masked row"),
]


@pytest.mark.parametrize(("assignment_id", "function", "without", "gap"), PLANTED, ids=lambda v: v if isinstance(v, str) else None)
def test_a_planted_gap_is_found(assignment_id, function, without, gap):
    """Taking away the tests that draw a class makes the check report it, for that function."""
    assert gap in input_classes.applicable(function, integers_documented(assignment_id))
    assert gap in gaps(assignment_id, SEEDS[0], without).get(function, [])


def test_the_classes_follow_the_docstrings():
    """A class applies by what is documented: none for a function of sizes only, the mask's by how it is applied."""
    assert input_classes.applicable("dot_product_variance", True) == ()
    assert "huge masked scores" in input_classes.applicable("multi_head_attention", True)  # through its attention
    assert "huge masked scores" not in input_classes.applicable("scaled_dot_product_attention_backward", True)
    assert "fully masked row" not in input_classes.applicable("scaled_dot_product_attention", True)  # undefined there
    assert "fully masked row" in input_classes.applicable("scaled_dot_product_attention_backward", True)
    assert not input_classes.integers_documented('"""Conventions: float32 inputs give float32 results."""')


def test_the_additive_mask_stand_in_is_wrong_where_masked_scores_are_huge():
    """The check's stand-in for an additive mask changes a result exactly when a masked score is huge."""
    Q, K, V = np.eye(3, 4), np.eye(3, 4), np.eye(3, 2)
    mask = np.array([True, True, False])
    small = input_classes.Call("scaled_dot_product_attention", {"Q": Q, "K": K, "V": V, "mask": mask}, "t")
    huge = input_classes.Call("scaled_dot_product_attention", {"Q": Q, "K": K * 1e5, "V": V, "mask": mask}, "t")
    assert "huge masked scores" not in input_classes.drawn(small, TOLERANCE)
    assert "huge masked scores" in input_classes.drawn(huge, TOLERANCE)


def _sized_arguments(function: str) -> tuple[str, ...]:
    return (*integer_sizes(function), *(["n"] if function == "causal_mask" else []))


@pytest.mark.parametrize("assignment_id", [a.id for a in COURSE.assignments])
def test_no_hidden_test_passes_a_bool_for_an_integer(assignment_id):
    """A bool is not a size: the docstrings say so (see below), and no hidden test passes one."""
    for call in recorded(assignment_id, SEEDS[0]):
        for name in _sized_arguments(call.function):
            assert not isinstance(call.arguments.get(name), (bool, np.bool_)), (call.test, name)


def test_causal_mask_says_the_same_of_a_bool_everywhere():
    """The reference, the solution and the released stub all say that a bool n is outside the contract."""
    assignment = next(a for a in COURSE.assignments if "causal_mask" in a.functions)
    layout = CourseDirectory.of()
    texts = {"reference": reference_function("causal_mask").__doc__,
             "solution": layout.master(assignment).read_text(encoding="utf-8"),
             "release": (layout.release(assignment.id) / assignment.module).read_text(encoding="utf-8")}
    assert {name: BOOL_SENTENCE in " ".join(text.split()) for name, text in texts.items()} == dict.fromkeys(texts, True)
