"""Read-out scores ``v . tanh(...)``: a nonlinearity that does not saturate, or that acts on each projection apart,
named from how the student's own function answers changed weights and states; silent on right and other wrong ones."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.diagnose.probes import PROBES, readout
from autograder.diagnose.probes.finding import Finding
from tests.autograder.diagnose.test_probes import additive, additive_args, case_of, concat_args, right


def _pre(s, H, W_a, U_a):
    return (s @ W_a.T)[..., None, :] + H @ U_a.T  # (..., T, d_a)


def _concat(activation):
    def concat(s, H, W_a, v_a):
        d_s = s.shape[-1]
        return activation((s @ W_a[:, :d_s].T)[..., None, :] + H @ W_a[:, d_s:].T) @ v_a
    return concat


ACTIVATIONS = {"relu": lambda x: np.maximum(x, 0.0), "abs": np.abs, "leaky": lambda x: np.where(x > 0, x, 0.1 * x)}


@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
def test_unbounded_activation_names_an_additive_score_through_a_homogeneous_activation(activation):
    student = lambda s, H, W_a, U_a, v_a: ACTIVATIONS[activation](_pre(s, H, W_a, U_a)) @ v_a  # noqa: E731
    case = case_of("additive_score", additive_args(d_a=4), student=student, recall=True)
    assert readout.unbounded_activation(case) == [Finding("additive.unbounded_activation", {"weights": "W_a and U_a"})]
    assert readout.unbounded_activation in PROBES and readout.nonlinearity_per_part in PROBES


def test_unbounded_activation_names_a_missing_tanh_as_such_in_both_scores():
    additive_case = case_of("additive_score", additive_args(d_a=4), recall=True,
                            student=lambda s, H, W_a, U_a, v_a: _pre(s, H, W_a, U_a) @ v_a)
    assert readout.unbounded_activation(additive_case) == [Finding("additive.missing_tanh", {})]
    concat_case = case_of("concat_score", concat_args(), student=_concat(lambda x: x), recall=True)
    assert readout.unbounded_activation(concat_case) == [Finding("luong.missing_tanh", {})]
    relu_concat = case_of("concat_score", concat_args(), student=_concat(ACTIVATIONS["relu"]), recall=True)
    assert readout.unbounded_activation(relu_concat) == [Finding("luong.unbounded_activation", {"weights": "W_a"})]


def test_unbounded_activation_silent_on_right_saturating_and_unrelated_wrong_scores():
    args = additive_args(d_a=4)
    assert readout.unbounded_activation(right("additive_score", args)) == []
    outside = lambda s, H, W_a, U_a, v_a: np.tanh(_pre(s, H, W_a, U_a) @ v_a)  # noqa: E731  (saturates, wrongly)
    assert readout.unbounded_activation(case_of("additive_score", args, student=outside, recall=True)) == []
    negated = lambda *a: -additive(*a)  # noqa: E731
    assert readout.unbounded_activation(case_of("additive_score", args, student=negated, recall=True)) == []
    assert readout.unbounded_activation(case_of("concat_score", concat_args(), student=_concat(np.sin), recall=True)) == []


def test_unbounded_activation_silent_where_the_reference_is_linear_on_the_inputs():
    s, H, W_a, U_a, v_a = additive_args(d_a=4)
    tiny = (s, H, W_a * 1e-6, U_a * 1e-6, v_a)  # tanh is the identity there: the test cannot tell
    student = lambda s, H, W_a, U_a, v_a: _pre(s, H, W_a, U_a) @ v_a * 1.5  # noqa: E731  (wrong, and linear)
    assert readout.unbounded_activation(case_of("additive_score", tiny, student=student, recall=True)) == []


def test_nonlinearity_per_part_names_a_tanh_on_each_projection_apart():
    student = lambda s, H, W_a, U_a, v_a: (np.tanh(s @ W_a.T)[..., None, :] + np.tanh(H @ U_a.T)) @ v_a  # noqa: E731
    case = case_of("additive_score", additive_args(d_a=4), student=student, recall=True)
    assert readout.nonlinearity_per_part(case) == [Finding("additive.nonlinearity_per_part", {})]
    assert readout.unbounded_activation(case) == []  # it saturates

    def concat(s, H, W_a, v_a):  # v_a . tanh(W_s s) + v_a . tanh(W_h h_j)
        d_s = s.shape[-1]
        return (np.tanh(s @ W_a[:, :d_s].T) @ v_a)[..., None] + np.tanh(H @ W_a[:, d_s:].T) @ v_a

    assert readout.nonlinearity_per_part(case_of("concat_score", concat_args(), student=concat, recall=True)) == [
        Finding("luong.nonlinearity_per_part", {})]


def test_nonlinearity_per_part_silent_on_right_and_mixing_scores():
    args = additive_args(d_a=4)
    assert readout.nonlinearity_per_part(right("additive_score", args)) == []
    assert readout.nonlinearity_per_part(right("concat_score", concat_args())) == []
    doubled = lambda *a: 2 * additive(*a)  # noqa: E731  (wrong, but s and h_j still meet inside the tanh)
    assert readout.nonlinearity_per_part(case_of("additive_score", args, student=doubled, recall=True)) == []
    s, H = args[0], np.concatenate([args[1], args[1][..., :1]], axis=-1)  # d_s = d_h = 3; no read-out vector
    dot = case_of("dot_score", (s, H), student=lambda s, H: (H @ s[..., None])[..., 0] + 1.0, recall=True)
    assert readout.nonlinearity_per_part(dot) == []


def test_nonlinearity_per_part_silent_on_a_score_with_no_nonlinearity_at_all():
    student = lambda s, H, W_a, U_a, v_a: _pre(s, H, W_a, U_a) @ v_a  # noqa: E731  (separable too, but linear)
    case = case_of("additive_score", additive_args(d_a=4), student=student, recall=True)
    assert readout.nonlinearity_per_part(case) == []
