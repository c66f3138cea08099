"""Figures kept with a result: what is kept, when, how small, and that the record gives them back."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attn_reference
from autograder.engine.subject import Subject
from autograder.judge.compare import Tolerance
from autograder.grade.expect import Mismatch, expect_reference
from autograder.grade.figures import (
    MAX_SIDE,
    VarianceRow,
    WeightsFigure,
    figure_from_record,
    figure_record,
    keep_figure,
    matrix_slice,
    variance_row,
    weights_figure,
)
from autograder.mutants import mutant
from tests.autograder.support import InProcessSubmission

TOL = Tolerance(1e-5, 1e-8)
SDPA = "scaled_dot_product_attention"
X = np.eye(3, 4)


def _subject(function) -> Subject:
    subject = Subject(InProcessSubmission({SDPA: function}), (SDPA,))
    subject.start_test(SDPA)
    return subject


def test_a_slice_is_the_first_batch_elements_last_two_axes_cut_and_rounded_with_none_for_non_finite():
    array = np.arange(2 * 3 * 20 * 15, dtype=float).reshape(2, 3, 20, 15) / 7
    sliced = matrix_slice(array)
    assert (len(sliced), len(sliced[0])) == (MAX_SIDE, MAX_SIDE)
    assert sliced[1][2] == round(array[0, 0, 1, 2], 4)
    assert matrix_slice(np.array([np.nan, np.inf, 0.5])) == ((None, None, 0.5),)


def test_the_worked_example_is_kept_right_or_wrong():
    subject = _subject(attn_reference.scaled_dot_product_attention)
    expect_reference(subject, TOL, SDPA, X, X, X, what="attention on the worked example", worked_example=True)
    (figure,) = subject.figures
    assert isinstance(figure, WeightsFigure) and not figure.failing and figure.title == "attention on the worked example"
    assert figure.reference[0][:2] == (0.4519, 0.2741) and figure.student == figure.reference


def test_only_the_first_failing_call_of_a_question_is_kept():
    subject = _subject(mutant("attention.no_scaling").implementation)
    for _ in range(2):
        with pytest.raises(Mismatch):
            expect_reference(subject, TOL, SDPA, X, X, X, what="a failing call")
    (figure,) = subject.figures
    assert figure.failing and figure.student[0][0] != figure.reference[0][0]
    subject.start_test(SDPA)
    with pytest.raises(Mismatch):
        expect_reference(subject, TOL, SDPA, X, X, X, what="a failing call in the next test")
    assert subject.figures == []


def test_a_failure_a_heatmap_cannot_show_keeps_no_figure():
    def float32_weights(Q, K, V, mask=None):  # right values, wrong dtype: the two pictures would be identical
        Z, A = attn_reference.scaled_dot_product_attention(Q, K, V, mask)
        return Z, A.astype(np.float32)

    def square_weights(Q, K, V, mask=None):  # A of another shape: nothing to put side by side
        Z, A = attn_reference.scaled_dot_product_attention(Q, K, V, mask)
        return Z, A[..., :2, :2]

    for student in (float32_weights, square_weights):
        subject = _subject(student)
        with pytest.raises(Mismatch):
            expect_reference(subject, TOL, SDPA, X, X, X, what="a failing call")
        assert subject.figures == []


def test_a_right_call_that_is_not_the_worked_example_keeps_nothing():
    subject = _subject(attn_reference.scaled_dot_product_attention)
    expect_reference(subject, TOL, SDPA, X, X, X)
    assert subject.figures == []


def test_a_proxy_that_answers_every_attribute_is_never_asked_to_keep_a_figure():
    calls = []
    proxy = InProcessSubmission({"record_figure": lambda *a: calls.append(a) or np.zeros(1)})
    keep_figure(proxy, variance_row(4, 4.1, 1.02))
    assert calls == []


@pytest.mark.parametrize("figure", [
    weights_figure("t", np.full((2, 3), 0.5), np.array([[np.nan, 1.0, 0.0], [0.2, 0.3, 0.5]]), failing=True),
    VarianceRow(16, 15.8, None),
])
def test_a_figure_survives_the_json_record(figure):
    assert figure_from_record(json.loads(json.dumps(figure_record(figure)))) == figure


def test_a_record_of_an_unknown_kind_is_left_out():
    assert figure_from_record({"kind": "sound"}) is None
    assert weights_figure("t", np.zeros((2, 2)), np.array(["a", "b"]), failing=True) is None
