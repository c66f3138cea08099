"""A named bug is shown only when it holds on the call's re-draws and what its hint states is true of the call."""

from __future__ import annotations

import numpy as np
import pytest

import attn_reference
from autograder.diagnose.confirm import claim_holds, confirmed, redraws
from autograder.diagnose.diagnosis import diagnose
from autograder.diagnose.probes import calls, softmax
from autograder.diagnose.probes.finding import Finding
from tests.autograder.diagnose.test_diagnosis import case_of, normal, softmax_along

ANY_BUG = "softmax.not_normalized"


def unnormalised(x, axis=-1):
    return np.exp(x - np.max(x, axis=axis, keepdims=True))


def test_a_finding_that_only_these_inputs_support_is_dropped_and_one_every_redraw_supports_is_kept():
    case = case_of("softmax", (normal((3, 5), 1),), student=unnormalised)
    original = case.arguments["x"].copy()

    def on_these_inputs_only(other):  # a coincidence of this very call
        return [Finding(ANY_BUG)] if np.array_equal(other.arguments["x"], original) else []

    def on_every_call(other):
        return [Finding(ANY_BUG)]

    assert redraws(case), "the call is re-drawn"
    assert confirmed(case, [(Finding(ANY_BUG), on_these_inputs_only)]) == []
    assert confirmed(case, [(Finding(ANY_BUG), on_every_call)]) == [Finding(ANY_BUG)]


def test_the_redraws_of_a_call_are_the_same_on_every_run():
    first = [c.arguments["x"] for c in redraws(case_of("softmax", (normal((3, 5), 1),), student=unnormalised))]
    again = [c.arguments["x"] for c in redraws(case_of("softmax", (normal((3, 5), 1),), student=unnormalised))]
    assert len(first) == len(again) and all(np.array_equal(a, b) for a, b in zip(first, again))


def additive_source_axis_at_one(s, H, W_a, U_a, v_a):  # np.expand_dims(.., 1): right only for a 2-D s
    decoder = np.expand_dims(s @ W_a.T, 1)
    return np.tanh(decoder + H @ U_a.T) @ v_a


def additive_arguments(batch=()):
    return normal(batch + (3,), 1), normal(batch + (6, 4), 2), normal((5, 3), 3), normal((5, 4), 4), normal((5,), 5)


def test_wrong_on_batched_input_is_never_said_of_a_call_without_batch_axes():
    unbatched = case_of("additive_score", additive_arguments(), student=additive_source_axis_at_one)
    assert not claim_holds(unbatched, "additive.no_batch_support")
    assert "additive.no_batch_support" not in {d.id for d in diagnose(unbatched)}
    batched = case_of("additive_score", additive_arguments((2, 3)), student=additive_source_axis_at_one)
    assert claim_holds(batched, "additive.no_batch_support")
    assert claim_holds(unbatched, "additive.missing_tanh")  # a hint that states no condition


def test_moved_axes_are_not_blamed_on_keepdims_but_a_missing_keepdims_is():
    def moved_not_restored(x, axis=-1):
        return softmax_along(np.moveaxis(x, axis, -1))

    def without_keepdims(x, axis=-1):
        e = np.exp(x - np.expand_dims(np.max(x, axis=axis), -1))
        return e / np.expand_dims(np.sum(e, axis=axis), -1)

    x = normal((4, 4), 1)
    assert calls.right_on_the_last_axis_only(case_of("softmax", (x,), {"axis": 0}, student=moved_not_restored)) == []
    said = diagnose(case_of("softmax", (x,), {"axis": 0}, student=moved_not_restored))
    assert [d.id for d in said] == ["call.axis_moved"] and "axis 0 moved to position -1" in said[0].hint
    found = calls.right_on_the_last_axis_only(case_of("softmax", (x,), {"axis": 0}, student=without_keepdims))
    assert [f.id for f in found] == ["call.last_axis_only"]


def test_non_finite_weights_of_another_cause_are_not_blamed_on_a_missing_shift():
    def shift_by_largest_magnitude(x, axis=-1):
        e = np.exp(x - np.max(np.abs(x)))
        return e / np.sum(e, axis=axis, keepdims=True)

    def no_shift(x, axis=-1):
        return np.exp(x) / np.sum(np.exp(x), axis=axis, keepdims=True)

    x = normal((3, 4), 2, 1.0) + np.array([[0.0], [-2000.0], [-1000.0]])  # rows far below the first
    assert softmax.overflow(case_of("softmax", (x,), student=shift_by_largest_magnitude)) == []
    large = normal((2, 4), 3, 1.0) + np.array([[0.0], [2000.0]])  # one row far above: only an unshifted exp overflows
    assert [f.id for f in softmax.overflow(case_of("softmax", (large,), student=no_shift))] == ["softmax.no_max_shift"]
    assert softmax.overflow(case_of("softmax", (large,), student=attn_reference.softmax)) == []


def test_a_right_function_gets_no_diagnosis_and_no_redraw_is_needed():
    case = case_of("softmax", (normal((3, 5), 1),), student=attn_reference.softmax)
    assert diagnose(case) == ()
    assert redraws(case) == []  # right on every re-draw: nothing there is evidence of a bug


def test_a_call_two_shifts_explain_alike_names_neither_nor_a_vaguer_guess():
    def global_max(x, axis=-1):
        e = np.exp(x - np.max(x))
        return e / np.sum(e, axis=axis, keepdims=True)

    alike = normal((2, 4), 4) + np.array([[0.0], [-2000.0]])  # no shift and one global shift break the same row
    named = [d.id for d in diagnose(case_of("softmax", (alike,), student=global_max))]
    assert named and all(bug.startswith("observed.") for bug in named), named
    apart = normal((2, 4), 4) + np.array([[0.0], [2000.0]])  # only a global shift breaks the first row
    assert [d.id for d in diagnose(case_of("softmax", (apart,), student=global_max))] == ["softmax.max_not_per_slice"]


def test_a_call_with_counts_is_redrawn_with_them_set_to_two_where_it_is_still_wrong():
    from autograder.inputs import RngSeed
    from tests.autograder.diagnose.test_relate_inputs import spectral_norm

    def off_by_one(d_k, n_keys, n_samples, rng, scaled=True):
        return attn_reference.softmax_gradient_norm(d_k, n_keys, n_samples, rng, scaled) + 1.0

    counts = [(c.arguments["d_k"], c.arguments["n_keys"], c.arguments["n_samples"])
              for c in redraws(case_of("softmax_gradient_norm", (8, 6, 5, RngSeed(3)), student=off_by_one))]
    assert (2, 2, 2) in counts
    spectral = redraws(case_of("softmax_gradient_norm", (8, 6, 5, RngSeed(3)), student=spectral_norm))
    assert (2, 2, 2) not in [(c.arguments["d_k"], c.arguments["n_keys"], c.arguments["n_samples"]) for c in spectral]


def test_a_function_that_hangs_when_called_again_costs_one_timeout_in_the_whole_diagnosis():
    from autograder.diagnose.case import Case
    from autograder.errors import CallTimeout
    from autograder.judge.compare import reference_function, run, split
    from tests.autograder.diagnose.test_diagnosis import TOL

    x = normal((3, 5), 1)
    calls = []

    def hangs(*args, **kwargs):  # what a timed-out call into the sandbox raises
        calls.append(args)
        raise CallTimeout("too slow")

    wrong = split(unnormalised(x))
    case = Case("softmax", (x,), {}, TOL, run(reference_function("softmax"), (x,), {}), wrong, hangs)
    diagnose(case)
    assert len(calls) == 1  # one timeout: no re-draw, probe or variation calls it again
    honest = case_of("softmax", (x,), student=unnormalised)
    assert [d.id for d in diagnose(honest)] == ["softmax.not_normalized"]  # the control: one that answers is named


def test_a_redrawn_case_stops_calling_once_any_call_of_its_failed_call_hung():
    from autograder.diagnose.confirm import _shared_caller
    from autograder.errors import CallTimeout

    calls = []

    def hangs_once_then_answers(*args, **kwargs):
        calls.append(args)
        if len(calls) == 1:
            raise CallTimeout("too slow")
        return unnormalised(*args)

    case = case_of("softmax", (normal((3, 5), 1),), student=unnormalised)
    case.call_student = hangs_once_then_answers
    shared = _shared_caller(case)
    for _ in range(3):
        with pytest.raises(CallTimeout):
            shared(normal((3, 5), 2))
    assert len(calls) == 1 and case.timed_out  # the hang is remembered by the failed call: never called again
    answering = case_of("softmax", (normal((3, 5), 1),), student=unnormalised)
    assert np.allclose(_shared_caller(answering)(normal((3, 5), 2)), unnormalised(normal((3, 5), 2)))


def test_right_on_the_first_and_last_examples_is_not_batch_only_when_the_wrong_one_fails_alone():
    def no_shift(x, axis=-1):
        return np.exp(x) / np.sum(np.exp(x), axis=axis, keepdims=True)

    x = normal((3, 4), 5) + np.array([[0.0], [2000.0], [0.0]])  # only the middle row overflows
    assert calls.batch_only(case_of("softmax", (x,), student=no_shift)) == []

    def flattens(x, axis=-1):  # right on one row, wrong on a batch: a real batch-only failure
        return attn_reference.softmax(x.reshape(-1)).reshape(x.shape) if x.ndim > 1 else attn_reference.softmax(x)

    assert [f.id for f in calls.batch_only(case_of("softmax", (normal((3, 4), 5),), student=flattens))] == ["softmax.no_keepdims"]


def test_a_bug_seen_only_on_large_inputs_is_dropped_where_the_student_is_as_wrong_on_small_ones():
    from autograder.diagnose.confirm import scaled_down

    def nan_everywhere(x, axis=-1):
        return np.full(np.shape(x), np.nan)

    large = normal((2, 4), 3, 1.0) + 2000.0  # every score large: NaN everywhere looks like an overflow here
    case = case_of("softmax", (large,), student=nan_everywhere)
    assert [f.id for f in softmax.overflow(case)] == ["softmax.no_max_shift"]  # the one call alone supports it
    assert confirmed(case, [(f, softmax.overflow) for f in softmax.overflow(case)]) == []
    assert np.max(np.abs(scaled_down(case)["x"])) == 1.0 and scaled_down(case_of("softmax", (large / 4000,),
                                                                               student=nan_everywhere)) is None


def test_sizes_a_count_divides_are_redrawn_cut_by_that_count_in_every_argument_of_that_size():
    from autograder.diagnose.confirm import _cut_by_count
    from autograder.diagnose.vocabulary import argument_shapes

    assert {name: argument_shapes("multi_head_attention")[name].axes for name in ("W_q", "W_o")} == {
        "W_q": ("d_model", "d_model"), "W_o": ("d_model", "d_model")}  # one numpydoc line names four weights
    X_q, X_kv = normal((5, 6), 1), normal((7, 6), 2)
    weights = tuple(normal((6, 6), seed) for seed in range(3, 7))
    case = case_of("multi_head_attention", (X_q, X_kv, *weights, 2), student=attn_reference.multi_head_attention)
    cut = _cut_by_count(case)
    assert {name: value.shape for name, value in cut.items() if name.startswith("W")} == dict.fromkeys(
        ("W_q", "W_k", "W_v", "W_o"), (4, 4))  # d_model 6 -> 4: 2 heads still divide it
    assert cut["X_q"].shape == (5, 4) and cut["X_kv"].shape == (7, 4)
