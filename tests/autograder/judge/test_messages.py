"""The student-facing words for a difference: numbers, part names, input shapes, row sums, counts."""

from __future__ import annotations

import re

import numpy as np
import pytest

from autograder.judge.compare import Parts, Tolerance, find_difference
from autograder.judge.messages import describe, input_shapes, number, part_name, sums_note

TOL = Tolerance(rtol=1e-5, atol=1e-8)
SDPA = "scaled_dot_product_attention"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (True, "True"),
        (np.bool_(False), "False"),
        (0.0, "0.0000"),
        (-0.25, "-0.2500"),
        (1e-3, "0.0010"),  # the lower end of fixed-point notation is included
        (9.99e-4, "9.9900e-04"),
        (1e-5, "1.0000e-05"),
        (99_999.0, "99999.0000"),
        (1e5, "1.0000e+05"),  # the upper end is not
        (float("inf"), "inf"),
        (float("nan"), "nan"),
    ],
)
def test_number(value, shown):
    assert number(value) == shown


@pytest.mark.parametrize(
    ("function", "part", "is_tuple", "name"),
    [
        ("dot_score", 0, False, "the scores"),  # one documented output
        ("dot_score", 0, True, "result[0]"),  # a tuple where one array is documented
        (SDPA, 0, False, "the result"),  # a single array where a tuple is documented
        (SDPA, 1, True, "A"),
        (SDPA, 2, True, "result[2]"),  # beyond the documented outputs
    ],
)
def test_part_name(function, part, is_tuple, name):
    assert part_name(function, part, is_tuple) == name


def test_input_shapes_show_arrays_by_shape_and_sizes_by_value_but_not_flags():
    assert input_shapes("split_heads", (np.zeros((2, 4)), 2), {}) == "X (2, 4), num_heads=2"
    assert input_shapes("split_heads", (np.zeros((2, 4)), np.int64(4)), {}) == "X (2, 4), num_heads=4"
    assert input_shapes("split_heads", ([[0.0] * 4] * 3, True), {}) == "X (3, 4)"


def test_input_shapes_of_arguments_that_do_not_fit_the_signature_are_empty():
    assert input_shapes("dot_score", (np.zeros(2),), {"no_such_argument": 1}) == ""


def test_a_wrong_shape_with_unfitting_arguments_names_only_the_shapes():
    reference = Parts(False, (np.zeros(1),))
    difference = find_difference(reference, np.zeros(2), TOL)
    message = describe(difference, "dot_score", (np.zeros(2),), {"no_such_argument": 1}, False, TOL)
    assert message == "the scores has shape (2,); expected (1,)"


def test_a_single_wrong_entry_of_one_counts_one_entry_and_notes_no_sums():
    reference = Parts(False, (np.array([1.0]),))
    difference = find_difference(reference, np.array([2.0]), TOL)
    message = describe(difference, "dot_score", (np.zeros(2), np.zeros((1, 2))), {}, False, TOL)
    assert message == "the scores differs in 1 of 1 entry (rtol=1e-05, atol=1e-08); first at index (0,): expected 1.0000, got 2.0000"


def test_non_finite_entries_are_counted_and_the_first_is_shown():
    reference = Parts(True, (np.ones((2, 2)), np.full((2, 2), 0.5)))
    actual = (np.array([[1.0, np.nan], [np.inf, 1.0]]), np.full((2, 2), 0.5))
    message = describe(find_difference(reference, actual, TOL), SDPA, (), {}, True, TOL)
    assert message == (
        "Z has 2 non-finite entries (inf or nan) where finite values are expected; "
        "first at index (0, 1): expected 1.0000, got nan"
    )


def test_sums_note_is_empty_when_every_sum_is_one():
    assert sums_note(np.array([[0.25, 0.75], [1.0, 0.0]]), 1, TOL) == ""
    assert sums_note(np.full((2, 2), np.nan), 1, TOL) == ""  # no finite sum to speak of


def test_sums_note_gives_the_range_of_the_sums_along_the_axis():
    weights = np.array([[0.5, 0.5], [1.0, 0.5]])  # row sums 1.0 and 1.5; column sums 1.5 and 1.0; total 2.5
    assert sums_note(weights, 1, TOL) == "; its sums along axis 1 should all be 1 but range from 1.0000 to 1.5000"
    assert sums_note(weights[:, :1], 1, TOL) == "; its sums along axis 1 should all be 1 but range from 0.5000 to 1.0000"


def test_sums_note_uses_both_tolerances():
    # A sum of 1.05 is within rtol 0.1 (0.1 * 1) and within atol 0.1, but not within numpy's defaults.
    near_one = np.array([[0.5, 0.55]])
    assert sums_note(near_one, 1, Tolerance(rtol=0.1, atol=0.0)) == ""
    assert sums_note(near_one, 1, Tolerance(rtol=0.0, atol=0.1)) == ""
    assert sums_note(near_one, 1, TOL) != ""


@pytest.mark.filterwarnings("error")
def test_sums_note_skips_undefined_sums_without_warning():
    # inf + -inf is nan (numpy would warn "invalid value"); the other row sums to 0.75.
    weights = np.array([[np.inf, -np.inf], [0.5, 0.25]])
    assert sums_note(weights, 1, TOL) == "; its sums along axis 1 should all be 1 but range from 0.7500 to 0.7500"


@pytest.mark.parametrize("expected, got", [(0.36551, 0.36549), (-2.0, -2.00001), (1234.5678, 1234.5679), (3e-7, 3.00001e-7)])
def test_a_wrong_entry_never_reads_like_the_expected_one(expected, got):
    reference = Parts(False, (np.array([expected]),))
    message = describe(find_difference(reference, np.array([got]), Tolerance(rtol=1e-9, atol=0.0)), "dot_score",
                       (), {}, False, Tolerance(rtol=1e-9, atol=0.0))
    shown = re.search(r"expected (\S+), got (\S+)$", message)
    assert shown.group(1) != shown.group(2) and float(shown.group(1)) != float(shown.group(2)), message
