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


def test_a_relation_is_shown_only_when_half_of_the_failed_tests_that_observed_something_state_it():
    twice = Diagnosis("observed.relation", "Compared with the expected result: dS: it is the expected one times 2.")
    other = Diagnosis("observed.relation", "Compared with the expected result: dS: it is the expected one times 3.")
    assert chosen_diagnoses([failed(twice, SEEN), failed(twice, SEEN)]) == {twice.id: twice.hint, SEEN.id: SEEN.hint}
    assert chosen_diagnoses([failed(twice, SEEN), failed(other, SEEN), failed(SEEN)]) == {SEEN.id: SEEN.hint}
    assert chosen_diagnoses([failed(twice, SEEN), failed(twice, SEEN), failed(other)])[twice.id] == twice.hint  # most say it
    assert chosen_diagnoses([failed(twice, SEEN), failed(SEEN), failed(SEEN)]) == {SEEN.id: SEEN.hint}  # most do not
    assert twice.id in chosen_diagnoses([failed(twice, SEEN), failed(SEEN)])  # half the calls show it, none denies it


def test_relations_that_differ_only_in_the_calls_shapes_count_as_one_statement():
    one = Diagnosis("observed.relation", "Compared with the expected result: it has shape (4, 7) where (4, 9): T has the size of d_h = 7.")
    two = Diagnosis("observed.relation", "Compared with the expected result: it has shape (3, 5) where (3, 8): T has the size of d_h = 5.")
    assert one.id in chosen_diagnoses([failed(one, SEEN), failed(two, SEEN), failed(SEEN)])
    factor = Diagnosis("observed.relation", "Compared with the expected result: it is the expected one times the constant 0.95.")
    assert factor.id not in chosen_diagnoses([failed(factor, SEEN), failed(two, SEEN), failed(SEEN)])
