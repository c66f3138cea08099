"""find_difference and the closeness rule: what counts as the same result, pinned with literal values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attn_reference
from autograder.errors import GraderError
from autograder.judge.compare import (
    DifferenceKind,
    Parts,
    Raised,
    Tolerance,
    agrees,
    close,
    contract,
    find_difference,
    mismatched,
    reference_function,
    run,
    same_values,
    split,
)

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


def test_a_tuple_where_one_array_is_documented_says_how_long_it_is():
    single = Parts(False, (np.zeros(3),))
    difference = find_difference(single, (np.zeros(3), np.zeros(3)), TOL)
    assert (difference.kind, difference.got) == (DifferenceKind.TUPLE_NOT_SINGLE, "2")


@pytest.mark.parametrize("reference_is_tuple", [False, True])
def test_a_ragged_result_is_not_an_array_of_the_part_it_stands_for(reference_is_tuple):
    expected = np.zeros((2, 2))
    ragged = [[1.0, 2.0], [3.0]]
    if reference_is_tuple:
        reference, actual, part = Parts(True, (expected, expected)), (expected, ragged), 1
    else:
        reference, actual, part = Parts(False, (expected,)), ragged, 0
    difference = find_difference(reference, actual, TOL)
    assert (difference.kind, difference.part, difference.actual) == (DifferenceKind.NOT_AN_ARRAY, part, None)
    assert difference.expected is expected


@pytest.mark.parametrize(
    ("expected", "actual", "kind"),
    [
        (np.ones(3, dtype=bool), np.ones(3), DifferenceKind.NOT_BOOLEAN),
        (np.ones(3), np.ones(3, dtype=np.int64), DifferenceKind.NOT_REAL),
    ],
)
def test_a_dtype_difference_names_the_part_and_keeps_both_values(expected, actual, kind):
    reference = Parts(True, (np.zeros(2), expected))
    difference = find_difference(reference, (np.zeros(2), actual), TOL)
    assert (difference.kind, difference.part) == (kind, 1)
    assert difference.expected is expected and difference.actual is actual


def test_split_marks_only_tuples_as_tuples():
    assert split(np.ones(2)).is_tuple is False
    assert split((np.ones(2), np.zeros(1))).is_tuple is True


def test_a_module_attribute_outside_all_is_no_graded_function():
    assert "contract" not in attn_reference.__all__ and hasattr(attn_reference, "contract")
    with pytest.raises(GraderError, match="no graded function 'contract'"):
        reference_function("contract")


def test_a_graded_name_without_a_contract_is_a_grader_error_saying_so(monkeypatch):
    def uncontracted():
        """A graded name whose function carries no contract."""

    monkeypatch.setattr(attn_reference, "uncontracted", uncontracted, raising=False)
    monkeypatch.setattr(attn_reference, "__all__", [*attn_reference.__all__, "uncontracted"])
    with pytest.raises(GraderError, match="^'uncontracted' has no contract$"):
        contract("uncontracted")


def test_run_gives_an_implementation_private_copies_of_nested_inputs():
    inner = np.ones(3)
    args, kwargs = ((inner,),), {"extra": [inner]}

    def clobber(pair, extra):
        pair[0][:] = 0.0
        extra[0][:] = 0.0
        return pair[0]

    result = run(clobber, args, kwargs)
    assert isinstance(result, Parts) and np.array_equal(result.arrays[0], np.zeros(3))
    assert np.array_equal(inner, np.ones(3))


@pytest.mark.filterwarnings("error")
def test_run_silences_floating_point_warnings_of_an_implementation():
    result = run(lambda x: x / 0.0, (np.array([1.0, -1.0]),), {})
    assert isinstance(result, Parts)
    assert np.array_equal(result.arrays[0], np.array([np.inf, -np.inf]))


@pytest.mark.filterwarnings("error")
def test_comparing_huge_values_of_opposite_signs_warns_nothing():
    # expected - actual overflows float64; the values are simply far apart.
    huge, opposite = np.array([1e308]), np.array([-1e308])
    assert mismatched(huge, opposite, TOL).all()
    assert not same_values(Parts(False, (huge,)), Parts(False, (opposite,)), TOL)


def test_same_values_needs_the_same_structure():
    values = (np.ones(2),)
    assert not same_values(Parts(True, values), Parts(False, values), TOL)
    assert not same_values(Parts(True, values), Parts(True, values + values), TOL)
    assert same_values(Parts(True, values), Parts(True, values), TOL)


def test_same_values_uses_both_tolerances():
    # |1.05 - 1| = 0.05 <= rtol 0.1 * 1; |0.05 - 0| = 0.05 <= atol 0.1; numpy's defaults accept neither.
    assert same_values(Parts(False, (np.array([1.0]),)), Parts(False, (np.array([1.05]),)), Tolerance(rtol=0.1, atol=0.0))
    assert same_values(Parts(False, (np.array([0.0]),)), Parts(False, (np.array([0.05]),)), Tolerance(rtol=0.0, atol=0.1))
    assert not same_values(Parts(False, (np.array([1.0]),)), Parts(False, (np.array([1.05]),)), TOL)


def test_run_keeps_the_exception_an_implementation_raised():
    error = ValueError("shapes (2, 3) and (4,) not aligned")

    def rejects(x):
        raise error

    result = run(rejects, (np.ones(2),), {})
    assert isinstance(result, Raised) and result.error is error


SPECIAL = st.sampled_from([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-300, 1e300])
FLOATS = st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=64), SPECIAL)


@settings(max_examples=300, deadline=None)
@given(
    pairs=st.lists(st.tuples(FLOATS, FLOATS), min_size=1, max_size=12),
    rtol=st.sampled_from([0.0, 1e-7, 1e-5, 1e-2]),
    atol=st.sampled_from([0.0, 1e-12, 1e-8, 1e-3]),
    equal_nan=st.booleans(),
)
def test_close_decides_exactly_like_numpy_isclose(pairs, rtol, atol, equal_nan):
    actual, expected = (np.array(values, dtype=np.float64) for values in zip(*pairs))
    with np.errstate(all="ignore"):
        near = expected + (np.abs(expected) * rtol + atol) * 0.999  # pairs on the edge of the tolerance, too
    for other in (actual, near):
        with np.errstate(over="ignore"):  # numpy's own isclose overflows on values near the float64 limit
            expected_verdict = np.isclose(other, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)
        np.testing.assert_array_equal(close(other, expected, Tolerance(rtol, atol), equal_nan), expected_verdict)
