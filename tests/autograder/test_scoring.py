"""How test results become points: weighted partial credit, then multiplicative penalties."""

from __future__ import annotations

import datetime as dt
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograder.config import Assignment, Question
from autograder.engine.outcome import CONTRACT
from autograder.engine.results import FAILED, PASSED, Diagnosis, TestResult
from autograder.scoring import CONTRACT_SHARE, SCORE_DECIMALS, apply_penalties, question_fraction, score_questions
from tests.strategies import QUICK

ASSIGNMENT = Assignment(
    id="hw_test",
    title="Test",
    module="m.py",
    notebook="m.ipynb",
    due=dt.datetime(2027, 1, 1, tzinfo=dt.timezone.utc),
    questions=(Question(function="softmax", points=4), Question(function="mask", points=1), Question(function="extra", points=3)),
)


def result(question: str, passed: bool, weight: float = 1.0, name: str = "test_x") -> TestResult:
    return TestResult(name=name, question=question, weight=weight, description="checks", status=PASSED if passed else FAILED)


def by_function(results: list[TestResult]) -> dict[str, float]:
    return {q.function: q.score for q in score_questions(ASSIGNMENT, results)}


def test_all_tests_passing_gives_full_points():
    scores = by_function([result("softmax", True), result("mask", True), result("extra", True)])
    assert scores == {"softmax": 4, "mask": 1, "extra": 3}


def test_weighted_partial_credit():
    results = [result("softmax", True, weight=3), result("softmax", False, weight=1)]
    assert by_function(results)["softmax"] == 3.0


def test_unweighted_tests_share_points_equally():
    results = [result("extra", True), result("extra", False), result("extra", True)]
    assert by_function(results)["extra"] == pytest.approx(2.0)


def test_a_question_with_no_tests_scores_zero():
    assert by_function([result("softmax", True)])["mask"] == 0


def test_results_for_unknown_questions_are_ignored():
    scores = score_questions(ASSIGNMENT, [result("softmax", True), result("not_a_question", True)])
    assert [q.score for q in scores] == [4, 0, 0]
    assert all(t.question != "not_a_question" for q in scores for t in q.tests)


def test_question_scores_follow_course_order_and_numbering():
    scores = score_questions(ASSIGNMENT, [result("extra", True), result("softmax", False)])
    assert [(q.number, q.function, q.points) for q in scores] == [(1, "softmax", 4), (2, "mask", 1), (3, "extra", 3)]


def test_question_score_keeps_its_tests_and_counts_passes():
    tests = [result("softmax", True, name="a"), result("softmax", False, name="b"), result("softmax", True, name="c")]
    softmax = score_questions(ASSIGNMENT, tests)[0]
    assert softmax.tests == tuple(tests)
    assert softmax.passed == 2
    assert [t.name for t in softmax.failed_tests] == ["b"]


def test_question_scores_are_rounded():
    softmax = score_questions(ASSIGNMENT, [result("softmax", True)] + [result("softmax", False)] * 2)[0]
    assert softmax.score == round(4 / 3, SCORE_DECIMALS)


def test_scores_keep_four_decimals():
    # 1 of 3 equal tests of a 4-point question: 4/3 = 1.33333..., kept as 1.3333 (not 1.33).
    softmax = score_questions(ASSIGNMENT, [result("softmax", True)] + [result("softmax", False)] * 2)[0]
    assert softmax.score == 1.3333
    assert apply_penalties(2.0, [1 / 3]) == 1.3333


def test_question_fraction_of_no_tests_is_zero():
    assert question_fraction([]) == 0.0


def test_question_fraction_with_zero_total_weight_is_zero():
    assert question_fraction([result("softmax", True, weight=0)]) == 0.0


def test_no_penalties_keeps_the_score():
    assert apply_penalties(7.5, []) == 7.5


def test_penalties_compose_multiplicatively():
    assert apply_penalties(10.0, [0.5, 0.1]) == pytest.approx(4.5)


def test_penalty_order_does_not_matter():
    assert apply_penalties(8.0, [0.2, 0.5]) == apply_penalties(8.0, [0.5, 0.2])


def test_full_penalty_gives_zero():
    assert apply_penalties(9.0, [0.5, 1.0]) == 0.0


def test_score_never_goes_below_zero():
    assert apply_penalties(9.0, [1.5]) == 0.0


def test_penalised_score_is_rounded():
    assert apply_penalties(1.0, [1 / 3]) == round(2 / 3, SCORE_DECIMALS)


@QUICK
@given(
    raw=st.floats(0, 100, allow_nan=False),
    penalties=st.lists(st.floats(0, 1, allow_nan=False), max_size=4),
)
def test_penalised_score_is_the_product_within_zero_and_raw(raw, penalties):
    score = apply_penalties(raw, penalties)
    assert 0.0 <= score <= round(raw, SCORE_DECIMALS)
    assert score == pytest.approx(raw * math.prod(1 - f for f in penalties), abs=10 ** -SCORE_DECIMALS)


@QUICK
@given(st.lists(st.tuples(st.booleans(), st.floats(0.1, 5, allow_nan=False)), min_size=1, max_size=6))
def test_question_fraction_is_the_weighted_pass_share(tests):
    results = [result("softmax", passed, weight) for passed, weight in tests]
    expected = sum(w for p, w in tests if p) / sum(w for _, w in tests)
    assert question_fraction(results) == pytest.approx(expected)
    assert 0.0 <= question_fraction(results) <= 1.0


@pytest.mark.parametrize(
    "points, english, chinese",
    [(1, "1 point", "1 分"), (1.0, "1 point", "1 分"), (2, "2 points", "2 分"), (1.5, "1.5 points", "1.5 分"),
     (0, "0 points", "0 分"), (0.5, "0.5 points", "0.5 分")],
)
def test_points_are_pluralised_in_both_languages(points, english, chinese):
    from autograder.i18n import render
    from autograder.scoring import points_message

    assert points_message(points) == english and render(points_message(points), "en") == english
    assert render(points_message(points), "zh") == chinese


def test_rounded_numbers_rounds_every_float_to_the_score_decimals_and_leaves_the_rest():
    from autograder.scoring import rounded_numbers

    data = {"a": 0.1 + 0.2, "b": [1 / 3, {"c": 2.0}], "n": 7, "flag": True, "text": "0.30000000000000004", "none": None,
            "t": (0.5,)}
    assert rounded_numbers(data) == {"a": 0.3, "b": [round(1 / 3, SCORE_DECIMALS), {"c": 2.0}], "n": 7, "flag": True,
                                     "text": "0.30000000000000004", "none": None, "t": [0.5]}
    assert rounded_numbers(1 / 3, 2) == 0.33 and type(rounded_numbers(True)) is bool


# ---------------------------------------------------------------------------------------
# the penalty policy: a broken contract costs CONTRACT_SHARE once


def contract_failure(weight: float = 1.0) -> TestResult:
    return TestResult(name="test_c", question="softmax", weight=weight, description="checks", status=FAILED, kind=CONTRACT)


def test_a_contract_failure_costs_the_fixed_share_however_many_tests_show_it():
    for broken in (1, 3, 8):
        tests = [contract_failure() for _ in range(broken)] + [result("softmax", True) for _ in range(10 - broken)]
        assert question_fraction(tests) == pytest.approx(1 - CONTRACT_SHARE)


def test_value_errors_cost_the_rest_in_proportion():
    tests = [contract_failure(), result("softmax", False), result("softmax", True), result("softmax", True)]
    assert question_fraction(tests) == pytest.approx(3 / 4 - CONTRACT_SHARE)
    assert question_fraction([result("softmax", False), result("softmax", True)]) == pytest.approx(1 / 2)


def test_a_contract_diagnosis_beside_wrong_values_costs_the_share_too():
    wrong = TestResult(name="t", question="softmax", weight=1, description="d", status=FAILED, kind="mismatch",
                       diagnoses=(Diagnosis("call.modifies_input", "hint"),))
    assert question_fraction([wrong, result("softmax", True)]) == pytest.approx(1 / 2 - CONTRACT_SHARE)


def test_the_score_never_goes_below_zero():
    assert question_fraction([contract_failure(), result("softmax", False, weight=9)]) == 0.0
