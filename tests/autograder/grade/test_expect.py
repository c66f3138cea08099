"""judge and expect_reference on right, wrong and broken results: messages, diagnoses, properties."""

from __future__ import annotations

import pickle

import re

import numpy as np
import pytest

import attn_reference
from autograder.sandbox.call import CallOutcome
from autograder.errors import BadReturn, CallTimeout, GraderError, StudentException
from autograder.judge.compare import Tolerance, reference_output
from autograder.report.chosen import is_observed
from autograder.grade.expect import Mismatch, expect_reference, judge
from autograder.judge.messages import first_mismatch
from autograder.inputs import RngSeed
from autograder.mutants import mutant
from tests.autograder.mutants.test_catalog import TOL, distinguishing_inputs, outcome, same

INPUTS = distinguishing_inputs()
SDPA = "scaled_dot_product_attention"
#: The batched SDPA inputs: Q (2, 5, 4), K (2, 6, 4), V (2, 6, 3), mask (5, 6).
SDPA_ARGS, SDPA_KWARGS = INPUTS[SDPA][0][1:]
SOFTMAX_ARGS, SOFTMAX_KWARGS = INPUTS["softmax"][0][1:]
VARIANCE_ARGS = INPUTS["dot_product_variance"][0][1]


def verdict(function, args, kwargs, actual, tol=TOL, subject=None):
    """What judge concludes about ``actual`` (a result, or a SubmissionError standing for a failed call)."""
    outcome_ = actual if isinstance(actual, Exception) else CallOutcome(actual)
    return judge(subject, tol, function, args, kwargs, outcome_)


class Returns:
    """A submission double whose every call returns one fixed value."""

    def __init__(self, value):
        self.value = value

    def call(self, function, *args, **kwargs):
        return self.value


class Runs:
    """A submission double whose function is ``implementation`` (called on copies of the inputs, as the sandbox does)."""

    def __init__(self, implementation):
        self.implementation = implementation

    def call(self, function, *args, **kwargs):
        from autograder.inputs import fresh
        return self.implementation(*fresh(args), **fresh(kwargs))


def named(diagnoses) -> tuple:
    """The diagnoses that name a bug (an observation of where or how it fails names none)."""
    return tuple(d for d in diagnoses if not is_observed(getattr(d, "id", d)))


def mismatch(function, args, kwargs, actual, what: str = "") -> Mismatch:
    """The Mismatch expect_reference raises for a call that returned ``actual``."""
    with pytest.raises(Mismatch) as caught:
        expect_reference(Returns(actual), TOL, function, *args, what=what, **kwargs)
    return caught.value


def diagnose(function, args, kwargs, actual, tol):
    """The diagnosis ids judge gives ``actual`` (empty for a right result)."""
    return tuple(d.id for d in verdict(function, args, kwargs, actual, tol).diagnoses)


@pytest.mark.parametrize("function", sorted(INPUTS))
def test_reference_output_passes(function):
    for _, args, kwargs in INPUTS[function]:
        assert verdict(function, args, kwargs, reference_output(function, args, kwargs)).right


def test_first_mismatch_names_index_expected_and_got():
    expected = np.zeros((2, 3, 2))
    expected[0, 2, 1] = 0.4519
    actual = expected.copy()
    actual[0, 2, 1] = 0.3
    assert first_mismatch(expected, actual, TOL) == "at index (0, 2, 1): expected 0.4519, got 0.3000"
    assert first_mismatch(expected, expected, TOL) == ""
    assert first_mismatch(np.float64(2.0), np.float64(3.0), TOL) == "expected 2.0000, got 3.0000"


def test_first_mismatch_respects_tolerance_and_ignores_undefined_entries():
    expected = np.array([1.0, np.nan, 1e-9])
    actual = np.array([1.0 + 1e-7, 5.0, 2e-9])
    assert first_mismatch(expected, actual, TOL) == ""
    assert first_mismatch(expected, actual, Tolerance(rtol=1e-9, atol=0.0)) == (
        "at index (0,): expected 1.0000000, got 1.0000001"  # digits enough to tell them apart
    )
    with pytest.raises(ValueError, match="shapes differ"):
        first_mismatch(expected, actual[:2], TOL)


def test_perturbed_entry_is_reported_with_its_index():
    expected = reference_output("softmax", SOFTMAX_ARGS, SOFTMAX_KWARGS)
    actual = expected.copy()
    actual[1, 2, 3] += 0.01
    error = mismatch("softmax", SOFTMAX_ARGS, SOFTMAX_KWARGS, actual)
    assert "differs in 1 of 30 entries" in error.student_message
    assert f"at index (1, 2, 3): expected {expected[1, 2, 3]:.4f}, got {actual[1, 2, 3]:.4f}" in error.student_message
    assert "sums along axis 1 should all be 1" in error.student_message
    assert named(error.diagnoses) == ()


def test_row_sums_are_reported_only_for_weights():
    Z, A = reference_output(SDPA, SDPA_ARGS, SDPA_KWARGS)
    assert "sums along axis -1" in mismatch(SDPA, SDPA_ARGS, SDPA_KWARGS, (Z, 2 * A)).student_message
    assert "sums" not in mismatch(SDPA, SDPA_ARGS, SDPA_KWARGS, (2 * Z, A)).student_message


def test_wrong_shape_names_both_shapes_and_the_input_shapes_only():
    Z, A = reference_output(SDPA, SDPA_ARGS, SDPA_KWARGS)
    message = mismatch(SDPA, SDPA_ARGS, SDPA_KWARGS, (Z, A[..., :-1])).student_message
    assert "A has shape (2, 5, 5); expected (2, 5, 6)" in message
    assert "Q (2, 5, 4), K (2, 6, 4), V (2, 6, 3), mask (5, 6)" in message
    Q = SDPA_ARGS[0]
    assert f"{Q.flat[0]:.4f}" not in message and "array" not in message


@pytest.mark.parametrize(
    ("actual", "dtype"),
    [(np.ones((2, 3, 5), dtype=complex), "complex128"), (np.empty((2, 3, 5), dtype=object), "object")],
)
def test_non_real_dtypes_are_rejected(actual, dtype):
    message = mismatch("softmax", SOFTMAX_ARGS, SOFTMAX_KWARGS, actual).student_message
    assert f"has dtype {dtype}; expected a real floating-point array" in message


def test_boolean_expected_where_the_reference_is_boolean():
    as_float = attn_reference.causal_mask(4).astype(np.float64)
    assert "expected a boolean array" in mismatch("causal_mask", (4,), {}, as_float).student_message


def test_tuple_arity_is_checked():
    Z, A = reference_output(SDPA, SDPA_ARGS, SDPA_KWARGS)
    assert "expected a tuple of 2 (Z, A), got a single ndarray" in mismatch(SDPA, SDPA_ARGS, SDPA_KWARGS, Z).student_message
    assert "got a tuple of 3" in mismatch(SDPA, SDPA_ARGS, SDPA_KWARGS, (Z, A, A)).student_message
    softmax = reference_output("softmax", SOFTMAX_ARGS, SOFTMAX_KWARGS)
    assert "expected a single array" in mismatch("softmax", SOFTMAX_ARGS, SOFTMAX_KWARGS, (softmax,)).student_message


def test_non_finite_entries_are_reported():
    Z, A = reference_output(SDPA, SDPA_ARGS, SDPA_KWARGS)
    Z = Z.copy()
    Z[1, 0, 2] = np.nan
    message = mismatch(SDPA, SDPA_ARGS, SDPA_KWARGS, (Z, A)).student_message
    assert "Z has 1 non-finite entry" in message and "at index (1, 0, 2)" in message and "got nan" in message


def test_undefined_reference_entries_accept_any_value():
    blocked_row = np.ones((2, 3), dtype=bool)
    blocked_row[1] = False
    args = (np.eye(2, 4), np.eye(3, 4), np.ones((3, 2)))
    Z, A = reference_output(SDPA, args, {"mask": blocked_row})
    assert np.isnan(A[1]).all()
    assert verdict(SDPA, args, {"mask": blocked_row}, (np.nan_to_num(Z), np.nan_to_num(A))).right


def test_label_prefixes_the_message():
    message = mismatch("causal_mask", (4,), {}, np.eye(4, dtype=bool), what="causal_mask(4)").student_message
    assert message.startswith("causal_mask(4): ")
    assert mismatch("causal_mask", (4,), {}, np.eye(4, dtype=bool)).student_message.startswith("causal_mask: ")


@pytest.mark.parametrize(
    "mutant_id",
    ["softmax.no_max_shift", "attention.mask_after_softmax", "heads.merge_mismatch", "mha.missing_output_projection"],
)
def test_mutant_output_is_diagnosed(mutant_id):
    known = mutant(mutant_id)
    reference = getattr(attn_reference, known.function)
    args, kwargs = next(
        (args, kwargs)
        for _, args, kwargs in INPUTS[known.function]
        if not same(outcome(known.implementation, args, kwargs), outcome(reference, args, kwargs))
    )
    with pytest.raises(Mismatch) as caught:  # the student's function is the mutant: called again, it answers as one
        expect_reference(Runs(known.implementation), TOL, known.function, *args, **kwargs)
    error = caught.value
    assert [d.id for d in error.diagnoses] == [mutant_id]
    assert f"Likely cause: {error.diagnoses[0].hint}" in str(error)


def _raised_by(implementation, args, kwargs) -> str:
    try:
        implementation(*args, **kwargs)
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    raise AssertionError("expected the implementation to raise")


def test_student_exception_is_matched_with_a_mutant_raising_the_same_error():
    raised = _raised_by(mutant("attention.no_batch_support").implementation, SDPA_ARGS, SDPA_KWARGS)
    traceback = f'Traceback (most recent call last):\n  File "s.py", line 3, in f\n{raised}\n'
    from autograder.engine.subject import Subject
    from tests.autograder.support import InProcessSubmission

    behaves_alike = Subject(InProcessSubmission({SDPA: mutant("attention.no_batch_support").implementation}))
    result = verdict(SDPA, SDPA_ARGS, SDPA_KWARGS, StudentException(traceback), subject=behaves_alike)
    assert raised in result.problem
    assert [d.id for d in result.diagnoses] == ["attention.no_batch_support"]


def test_an_exception_alike_is_not_enough_when_one_example_of_the_batch_behaves_otherwise():
    from autograder.engine.subject import Subject
    from tests.autograder.support import InProcessSubmission

    raised = _raised_by(mutant("attention.no_batch_support").implementation, SDPA_ARGS, SDPA_KWARGS)
    traceback = f'Traceback (most recent call last):\n  File "s.py", line 3, in f\n{raised}\n'

    def other_bug(Q, K, V, mask=None):  # right on one example? no: it returns zeros
        return np.zeros((*np.shape(Q)[:-1], np.shape(V)[-1])), np.zeros((*np.shape(Q)[:-1], np.shape(K)[-2]))

    result = verdict(SDPA, SDPA_ARGS, SDPA_KWARGS, StudentException(traceback), subject=Subject(InProcessSubmission({SDPA: other_bug})))
    assert named(result.diagnoses) == ()


def test_other_failures_are_not_blamed_on_raising_mutants():
    assert diagnose(SDPA, SDPA_ARGS, SDPA_KWARGS, StudentException("TypeError: 'NoneType' is not subscriptable"), TOL) == ()
    assert diagnose(SDPA, SDPA_ARGS, SDPA_KWARGS, BadReturn("None"), TOL) == ()
    assert diagnose(SDPA, SDPA_ARGS, SDPA_KWARGS, CallTimeout("too slow"), TOL) == ()


def test_unrelated_output_gets_no_diagnosis():
    assert named(diagnose("softmax", SOFTMAX_ARGS, SOFTMAX_KWARGS, np.zeros((2, 3, 5)), TOL)) == ()
    assert named(diagnose("softmax", SOFTMAX_ARGS, SOFTMAX_KWARGS, np.zeros((7,)), TOL)) == ()
    assert not verdict("softmax", SOFTMAX_ARGS, SOFTMAX_KWARGS, np.zeros((7,))).right


def test_rng_seed_inputs_draw_from_a_fresh_generator_on_every_run():
    seed = VARIANCE_ARGS[2].seed
    own_run = attn_reference.dot_product_variance(*VARIANCE_ARGS[:2], np.random.default_rng(seed))
    assert reference_output("dot_product_variance", VARIANCE_ARGS, {}) == own_run
    assert reference_output("dot_product_variance", VARIANCE_ARGS, {}) == own_run
    assert verdict("dot_product_variance", VARIANCE_ARGS, {}, tuple(np.asarray(v) for v in own_run)).right
    from tests.autograder.support import InProcessSubmission

    scaled_by_dk = InProcessSubmission({"dot_product_variance": mutant("variance.scaled_by_dk").implementation})
    with pytest.raises(Mismatch) as caught:
        expect_reference(scaled_by_dk, TOL, "dot_product_variance", *VARIANCE_ARGS)
    assert "var_scaled differs (rtol=1e-05, atol=1e-08): expected " in caught.value.student_message
    assert [d.id for d in caught.value.diagnoses] == ["variance.scaled_by_dk"]


def test_other_seed_is_a_mismatch():
    other = attn_reference.dot_product_variance(*VARIANCE_ARGS[:2], RngSeed(VARIANCE_ARGS[2].seed + 1).generator())
    assert "var_raw differs" in mismatch("dot_product_variance", VARIANCE_ARGS, {}, tuple(map(np.asarray, other))).student_message


def test_inputs_are_not_modified():
    copies = tuple(np.copy(a) for a in SDPA_ARGS)
    Z, A = reference_output(SDPA, SDPA_ARGS, SDPA_KWARGS)
    mismatch(SDPA, SDPA_ARGS, SDPA_KWARGS, (Z, 2 * A))
    assert all(np.array_equal(a, c) for a, c in zip(SDPA_ARGS, copies))


def test_mismatch_survives_pickling():
    from autograder.engine.results import Diagnosis

    error = Mismatch("softmax: wrong", (Diagnosis("softmax.no_max_shift", "a hint"),))
    restored = pickle.loads(pickle.dumps(error))
    assert restored.student_message == error.student_message
    assert restored.diagnoses == error.diagnoses
    assert str(restored) == str(error)
    assert isinstance(restored, AssertionError)


def test_grader_errors():
    with pytest.raises(GraderError, match="no graded function"):
        verdict("no_such_function", (), {}, np.zeros(1))
    with pytest.raises(GraderError, match="raised on the test's inputs"):
        verdict("causal_mask", (0,), {}, np.zeros((0, 0), dtype=bool))


# ---------------------------------------------------------------------------------------
# contract failures: right values, a broken contract (autograder.scoring.CONTRACT_SHARE)


def test_right_values_with_a_size_one_axis_too_many_are_a_contract_failure():
    Z, A = reference_output(SDPA, SDPA_ARGS, SDPA_KWARGS)
    error = mismatch(SDPA, SDPA_ARGS, SDPA_KWARGS, (Z, A[..., None]))
    assert error.contract
    assert "A has shape (2, 5, 6, 1); expected (2, 5, 6)" in error.student_message
    assert "25 % of the question once" in error.student_message
    assert pickle.loads(pickle.dumps(error)).contract


def test_wrong_values_in_a_wrong_shape_are_not_a_contract_failure():
    Z, A = reference_output(SDPA, SDPA_ARGS, SDPA_KWARGS)
    assert not mismatch(SDPA, SDPA_ARGS, SDPA_KWARGS, (Z, 2 * A[..., None])).contract
    assert not mismatch(SDPA, SDPA_ARGS, SDPA_KWARGS, (Z, A.reshape(A.shape[0], -1))).contract  # not only size-1 axes
    assert not mismatch(SDPA, SDPA_ARGS, SDPA_KWARGS, (Z, A + 1)).contract


def test_an_in_place_write_with_right_values_is_a_contract_failure():
    x = reference_output("softmax", SOFTMAX_ARGS, SOFTMAX_KWARGS)
    assert verdict("softmax", SOFTMAX_ARGS, SOFTMAX_KWARGS, x).contract is False
    listed = CallOutcome(x, mutated=("0",))  # the right values, and its argument written in place
    judged = judge(None, TOL, "softmax", SOFTMAX_ARGS, SOFTMAX_KWARGS, listed)
    assert judged.contract and not judged.right


def test_an_estimate_outside_sampling_error_never_reads_like_the_expected_one():
    from autograder.grade.estimates import _within_sampling_error
    from autograder.grade.expect import CheckFailed as Failed

    with pytest.raises(Failed) as failure:
        _within_sampling_error((0.36549,), (0.36551,), (1e-7,), lambda part: "the mean norm")
    shown = re.search(r"within sampling error of (\S+) .*got (\S+)$", str(failure.value.student_message))
    assert shown.group(1) != shown.group(2), failure.value.student_message


def test_right_values_with_a_size_one_axis_too_many_are_explained_by_their_shape_and_right_ones_are_not():
    s, H = np.arange(6.0).reshape(2, 3) / 7, np.arange(24.0).reshape(2, 4, 3) / 11
    scores = reference_output("dot_score", (s, H), {})
    judged = verdict("dot_score", (s, H), {}, scores[..., None])
    assert judged.contract and [d.id for d in judged.diagnoses] == ["call.extra_unit_axis"]
    assert "an extra axis of size 1" in judged.diagnoses[0].hint and "(2, 4, 1)" in judged.diagnoses[0].hint
    assert verdict("dot_score", (s, H), {}, scores).diagnoses == ()
