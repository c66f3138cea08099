"""find_difference and the closeness rule: what counts as the same result, pinned with literal values."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.grade.compare import DifferenceKind, Parts, Tolerance, agrees, find_difference, mismatched, same_values

TOL = Tolerance(rtol=1e-5, atol=1e-8)


def test_an_extra_leading_batch_axis_is_a_shape_difference():
    expected = np.arange(12.0).reshape(3, 4)
    for actual in (expected[None], np.stack([expected, expected]), expected[None, None]):
        difference = find_difference(Parts(False, (expected,)), actual, TOL)
        assert difference is not None and difference.kind is DifferenceKind.SHAPE, actual.shape


def test_a_difference_in_a_leading_axis_only_is_a_shape_difference():
    expected = np.zeros((2, 3, 4))
    assert find_difference(Parts(False, (expected,)), np.zeros((5, 3, 4)), TOL).kind is DifferenceKind.SHAPE


def test_rtol_scales_with_the_expected_value_and_atol_does_not():
    # |10.5 - 10| = 0.5: within rtol 0.1 (0.1 * 10 = 1.0) but not within atol 0.1.
    expected, actual = np.array([10.0]), np.array([10.5])
    assert not mismatched(expected, actual, Tolerance(rtol=0.1, atol=0.0)).any()
    assert mismatched(expected, actual, Tolerance(rtol=0.0, atol=0.1)).all()
    # |0.05 - 0| = 0.05: within atol 0.1 but not within any rtol of 0.
    assert not mismatched(np.array([0.0]), np.array([0.05]), Tolerance(rtol=0.0, atol=0.1)).any()
    assert mismatched(np.array([0.0]), np.array([0.05]), Tolerance(rtol=0.1, atol=0.0)).all()


def test_the_tolerance_is_relative_to_the_expected_value_not_the_actual_one():
    # |1.2 - 1| = 0.2 <= 0.2 * 1 (expected), but > 0.2 * |1| if measured on the other side it would still hold;
    # with expected 1 and actual 1.25: 0.25 > 0.2 * 1, though 0.25 <= 0.2 * 1.25.
    assert mismatched(np.array([1.0]), np.array([1.25]), Tolerance(rtol=0.2, atol=0.0)).all()


def test_undefined_expected_entries_match_anything_but_a_nan_result_does_not_match_a_number():
    assert not mismatched(np.array([np.nan, 1.0]), np.array([123.0, 1.0]), TOL).any()
    assert mismatched(np.array([1.0]), np.array([np.nan]), TOL).all()


@pytest.mark.parametrize(
    "actual, kind",
    [
        (np.ones((2, 3)), DifferenceKind.SINGLE_NOT_TUPLE),
        ((np.ones((2, 3)),), DifferenceKind.ARITY),
        ((np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3))), DifferenceKind.ARITY),
        ((np.ones((2, 3)), np.ones((3, 2))), DifferenceKind.SHAPE),
        ((np.ones((2, 3), dtype=np.int64), np.ones((2, 3))), DifferenceKind.NOT_REAL),
        ((np.full((2, 3), np.inf), np.ones((2, 3))), DifferenceKind.NON_FINITE),
        ((np.ones((2, 3)), np.full((2, 3), 2.0)), DifferenceKind.VALUES),
    ],
)
def test_the_first_difference_of_a_tuple_result(actual, kind):
    reference = Parts(True, (np.ones((2, 3)), np.ones((2, 3))))
    assert find_difference(reference, actual, TOL).kind is kind


def test_a_tuple_where_one_array_is_documented_and_booleans_where_booleans_are():
    single = Parts(False, (np.ones(3, dtype=bool),))
    assert find_difference(single, (np.ones(3, dtype=bool),), TOL).kind is DifferenceKind.TUPLE_NOT_SINGLE
    assert find_difference(single, np.ones(3), TOL).kind is DifferenceKind.NOT_BOOLEAN
    assert find_difference(single, np.ones(3, dtype=bool), TOL) is None


def test_agrees_and_same_values():
    a = Parts(True, (np.array([1.0, np.nan]),))
    assert agrees(a, Parts(True, (np.array([1.0, 5.0]),)), TOL)
    assert not agrees(a, Parts(False, (np.array([1.0, 5.0]),)), TOL)
    assert same_values(a, Parts(True, (np.array([1.0, np.nan]),)), TOL)
    assert not same_values(a, Parts(True, (np.array([1.0, 5.0]),)), TOL)
