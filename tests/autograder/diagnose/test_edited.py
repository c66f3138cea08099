"""Slips of the right code (:mod:`autograder.diagnose.edited`): a wrong function written here that is the right one
with one slip is named by that slip; two slips, a right function and a bug a probe names are not, and a slip named
on one call but not on its re-draws is dropped."""

from __future__ import annotations

import ast

import numpy as np

from autograder.diagnose import edited
from autograder.diagnose.confirm import confirmed
from autograder.diagnose.diagnosis import diagnose
from autograder.diagnose.edit_operators import Edit, abbreviated, applied, edits
from autograder.diagnose.probes.finding import Finding
from autograder.judge.compare import reference_function
from tests.autograder.diagnose.test_probes import additive_args, case_of, qkv, right, unscaled

ADDITIVE = "additive_score"


def _slips(case) -> list[Finding]:
    """The slips named on a call, without what confirms them."""
    return [finding for finding, _again in edited.edit_findings(case)]


def _additive(nonlinearity=np.tanh, with_v=True):
    def score(s, H, W_a, U_a, v_a):
        hidden = nonlinearity((s @ W_a.T)[..., None, :] + H @ U_a.T)
        return hidden @ v_a if with_v else hidden.sum(axis=-1)
    return score


def _bracket_slip(A, dA, axis=-1):
    A, dA = np.asarray(A, dtype=float), np.asarray(dA, dtype=float)
    return A * dA - np.sum(A * dA, axis=axis, keepdims=True)  # A * (dA - <A, dA>) with its brackets moved


def _backward_args():
    weights = np.random.default_rng(3).dirichlet(np.ones(5), size=(2, 4))  # (2, 4, 5), rows sum to 1
    return weights, np.random.default_rng(4).standard_normal((2, 4, 5))


def test_a_function_written_with_tan_for_tanh_is_named_by_that_slip():
    found = _slips(case_of(ADDITIVE, additive_args(), student=_additive(np.tan), recall=True))
    assert [f.id for f in found] == [edited.EDIT_ID]
    assert "np.tanh(" in found[0].facts["was"] and "np.tan(" in found[0].facts["becomes"]


def test_brackets_moved_in_a_backward_pass_are_named_with_the_expression_as_it_should_be():
    found = _slips(case_of("softmax_backward", _backward_args(), student=_bracket_slip, recall=True))
    assert len(found) == 1 and "(" in found[0].facts["was"].replace("np.sum(", "")
    assert found[0].facts["becomes"].count("(") < found[0].facts["was"].count("(")


def test_two_slips_and_a_right_function_name_no_slip():
    two = case_of(ADDITIVE, additive_args(), student=_additive(np.tan, with_v=False), recall=True)
    assert _slips(two) == []
    assert _slips(right(ADDITIVE, additive_args())) == []


def test_the_diagnosis_names_the_slip_only_where_no_probe_names_a_bug():
    slipped = diagnose(case_of(ADDITIVE, additive_args(), student=_additive(np.tan), recall=True))
    assert [d.id for d in slipped] == [edited.EDIT_ID] and "np.tan(" in str(slipped[0].hint)
    unscaled_ids = [d.id for d in diagnose(case_of("scaled_dot_product_attention", qkv(), student=unscaled, recall=True))]
    assert unscaled_ids and edited.EDIT_ID not in unscaled_ids  # the missing scale has its own probe


def test_a_slip_named_on_a_call_but_another_on_its_redraws_is_dropped():
    case = case_of(ADDITIVE, additive_args(), student=_additive(np.tan), recall=True)
    by_shape = lambda c: [Finding(edited.EDIT_ID, {}, key=str(np.shape(c.args[1])))]  # noqa: E731
    assert confirmed(case, [(f, by_shape) for f in by_shape(case)]) == []
    steady = lambda c: [Finding(edited.EDIT_ID, {}, key="one slip")]  # noqa: E731
    assert confirmed(case, [(f, steady) for f in steady(case)]) == steady(case)


def test_two_slips_shown_differently_name_neither_and_other_axes_of_one_call_name_the_one_from_the_end():
    place = (None, "", None)
    one, other = Edit(place, ast.Pass(), "a + b", "a - b", "operator"), Edit(place, ast.Pass(), "a + b", "b", "operand")
    assert edited._one_slip([one]) is one and edited._one_slip([one, other]) is None  # noqa: SLF001
    axis_0 = Edit(place, ast.Pass(), "np.sum(x, axis=-1)", "np.sum(x, axis=0)", "axis")
    axis_2 = Edit(place, ast.Pass(), "np.sum(x, axis=-1)", "np.sum(x, axis=-2)", "axis")
    assert edited._one_slip([axis_0, axis_2]) is axis_2  # noqa: SLF001


def test_every_edit_is_undone_and_the_reference_keeps_its_code():
    reference = reference_function(ADDITIVE)
    tree = edited._tree(reference)  # noqa: SLF001
    before = ast.unparse(tree)
    made = list(edits(tree))
    assert len(made) > 20 and all(e.was != e.becomes for e in made)
    with applied(made[0]):
        assert ast.unparse(tree) != before
    assert ast.unparse(tree) == before
    edited.edited_versions(ADDITIVE)
    assert ast.unparse(tree) == before
    assert np.allclose(reference(*additive_args()), _additive()(*additive_args()))


def test_no_edit_touches_the_validation_of_the_inputs():
    source = ast.parse("def f(x, n):\n    if n < 1:\n        raise ValueError(f'n={n} < 1')\n    return x * n\n").body[0]
    shown = {e.was for e in edits(source)}
    assert shown and not any("n < 1" in s or "raise" in s or "ValueError" in s for s in shown)


def test_a_shown_expression_hides_what_lies_deeper_than_two_levels():
    assert abbreviated(ast.parse("np.tanh(a @ (b + c)) @ v", mode="eval").body) == "np.tanh(…) @ v"


def _general_with_tanh(s, H, W_a):
    return (H @ np.tanh(np.asarray(s) @ W_a)[..., :, None])[..., 0]  # a tanh copied from the additive score


def _hand_written_tanh(s, H, W_a, U_a, v_a):
    x = (s @ W_a.T)[..., None, :] + H @ U_a.T
    return (2 / (1 + np.exp(-x)) - 1) @ v_a  # 2 sigmoid(x) - 1 is tanh(x / 2)


def test_a_function_applied_where_none_belongs_and_a_halved_argument_are_named():
    d_s, d_h = 3, 4
    s, H = np.random.default_rng(5).standard_normal((2, d_s)), np.random.default_rng(6).standard_normal((2, 5, d_h))
    wrapped = diagnose(case_of("general_score", (s, H, np.random.default_rng(7).standard_normal((d_s, d_h))),
                               student=_general_with_tanh, recall=True))
    assert [d.id for d in wrapped] == [edited.EDIT_ID] and "np.tanh(s @ W_a)" in str(wrapped[0].hint)
    halved = _slips(case_of(ADDITIVE, additive_args(), student=_hand_written_tanh, recall=True))
    assert len(halved) == 1 and "/ 2)" in halved[0].facts["becomes"]


def test_a_slip_is_confirmed_on_a_redraw_only_where_its_own_version_gives_the_students_result():
    case = case_of(ADDITIVE, additive_args(), student=_additive(np.tan), recall=True)
    (finding, again), = edited.edit_findings(case)
    assert again(case) == [finding]
    other = case_of(ADDITIVE, additive_args(d_s=2, d_h=3), student=_additive(np.tan, with_v=False), recall=True)
    assert again(other) == []


def test_a_run_tries_the_slip_it_found_first_and_stops_searching_after_fruitless_searches(monkeypatch):
    memo: dict = {}
    first = case_of(ADDITIVE, additive_args(), student=_additive(np.tan), recall=True)
    first.memo = memo
    (found, _again), = edited.edit_findings(first)
    assert memo["slips"] == [found.key]

    def no_search(case):
        raise AssertionError("searched every version again")

    monkeypatch.setattr(edited, "_matching", no_search)
    later = case_of(ADDITIVE, additive_args(d_s=2, d_h=3), student=_additive(np.tan), recall=True)
    later.memo = memo
    assert [f for f, _ in edited.edit_findings(later)] == [found]  # the known slip, tried alone
    monkeypatch.undo()
    fruitless: dict = {}
    for _ in range(edited.MOST_FRUITLESS):
        two = case_of(ADDITIVE, additive_args(), student=_additive(np.tan, with_v=False), recall=True)
        two.memo = fruitless
        assert edited.edit_findings(two) == []
    monkeypatch.setattr(edited, "_matching", no_search)
    assert edited.edit_findings(two) == []  # searched no more
