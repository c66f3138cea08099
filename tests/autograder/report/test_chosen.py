"""One diagnosis per question, chosen by evidence; observations only where no bug is named; a few cases shown."""

from __future__ import annotations

from autograder.engine.results import Diagnosis, TestResult
from autograder.report.chosen import SHOWN_CASES, chosen_diagnoses
from autograder.report.text import question_feedback
from tests.autograder.report.test_text import FAILED, QUESTIONS

ONE = Diagnosis("attention.no_scaling", "hint one")
OTHER = Diagnosis("attention.scale_by_dk", "hint other")
SEEN = Diagnosis("observed.condition", "Where it fails: somewhere.")


def failed(*diagnoses, message="wrong") -> TestResult:
    return TestResult("test_x", "scaled_dot_product_attention", 1.0, "A test", FAILED, message=message, kind="mismatch",
                      diagnoses=diagnoses)


def test_the_bug_found_on_most_tests_is_the_one_shown():
    assert chosen_diagnoses([failed(OTHER), failed(ONE, OTHER), failed(ONE)]) == {OTHER.id: OTHER.hint}  # a tie: the first
    assert chosen_diagnoses([failed(OTHER), failed(ONE), failed(ONE)]) == {ONE.id: ONE.hint}


def test_an_observation_is_shown_only_when_no_test_names_a_bug():
    assert chosen_diagnoses([failed(SEEN), failed(OTHER)]) == {OTHER.id: OTHER.hint}
    assert chosen_diagnoses([failed(SEEN), failed(SEEN)]) == {SEEN.id: SEEN.hint}


def test_the_short_report_puts_the_diagnosis_first_and_counts_what_it_leaves_out():
    from dataclasses import replace

    tests = tuple(replace(failed(ONE, message=f"case {i}"), name=f"test_{i}") for i in range(SHOWN_CASES + 2))
    question = replace(next(q for q in QUESTIONS if q.function == "scaled_dot_product_attention"), tests=tests)
    short, everything = question_feedback(question), question_feedback(question, verbose=True)
    assert short[0] == f"Likely bug [{ONE.id}]: {ONE.hint}"
    assert len(short) == 1 + SHOWN_CASES + 1 and short[-1] == "- 2 more tests fail the same way"
    assert len(everything) == 1 + len(tests)


def test_of_an_observation_said_differently_by_the_failed_tests_the_most_said_is_kept():
    from autograder.engine.results import Diagnosis

    rare = Diagnosis("observed.condition", "Where it fails: right without a mask, wrong with one.")
    common = Diagnosis("observed.condition", "Where it fails: right when the sizes are made equal, wrong when they differ.")
    assert chosen_diagnoses([failed(rare), failed(common), failed(common)]) == {common.id: common.hint}
    assert chosen_diagnoses([failed(rare), failed(common)]) == {rare.id: rare.hint}  # a tie: the first
