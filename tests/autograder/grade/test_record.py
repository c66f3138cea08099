"""The canonical result record round-trips every field, and reads the records of earlier versions."""

from __future__ import annotations

import json

import pytest

from autograder.engine.results import FAILED, PASSED, Diagnosis, TestResult
from autograder.grade.record import from_record, to_record
from autograder.grade.result import GradeResult, Penalty
from autograder.scoring import QuestionScore

RESULT = GradeResult(
    assignment_id="hw1_scaled_attention",
    origin="ada/scaled_attention.py",
    questions=(
        QuestionScore("softmax", 1, 2.0, 1.3333, (
            TestResult("test_a", "softmax", 2.0, "big scores", FAILED, "the result has 3 non-finite entries", "mismatch",
                       (Diagnosis("softmax.no_max_shift", "Your softmax does not subtract the maximum."),)),
            TestResult("test_b", "softmax", 1.0, "rows", PASSED),
        )),
        QuestionScore("scaled_dot_product_attention", 2, 4.0, 4.0, (
            TestResult("test_c", "scaled_dot_product_attention", 1.0, "large", PASSED, carried_from=("softmax",)),
        )),
    ),
    max_score=6.0, raw_score=5.3333, score=4.8, penalties=(Penalty("1 day(s) late", 0.1),),
    load_error=None, import_violations=("torch",), isolation="bwrap", student_output="hi\n", execution_time=0.5,
    grader_version="0.1.0", days_late=1, seed=987654321, submitted_at="2027-03-09T10:00:00+00:00",
    submitted_at_source="--submitted-at",
)


def test_a_record_round_trips_every_field_through_json():
    assert from_record(json.loads(json.dumps(to_record(RESULT)))) == RESULT


def test_a_record_of_an_earlier_version_without_hints_still_reads():
    record = to_record(RESULT)
    for question in record["questions"]:
        for test in question["tests"]:
            del test["hints"]
    del record["seed"], record["submitted_at_source"]
    restored = from_record(record)
    assert restored.seed is None and restored.questions[0].tests[0].diagnoses == (Diagnosis("softmax.no_max_shift", ""),)


def test_a_record_without_its_questions_is_refused():
    record = to_record(RESULT)
    del record["questions"]
    with pytest.raises(KeyError):
        from_record(record)
