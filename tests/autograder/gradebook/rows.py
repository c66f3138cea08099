"""Gradebook rows made from real canonical records, for the tests of what reads them."""

from __future__ import annotations

import json

from autograder.engine.results import FAILED, PASSED, Diagnosis, TestResult
from autograder.grade.record import to_record
from autograder.grade.result import GradeResult, Penalty
from autograder.scoring import QuestionScore

from .test_store import make_row

NO_SCALE = Diagnosis("attention.no_scaling", "Divide the scores by sqrt(d_k) before the softmax.")
NO_SHIFT = Diagnosis("softmax.no_max_shift", "Subtract the row maximum before np.exp.")


def a_test(function: str, passed: bool, kind: str = "mismatch", diagnoses=()) -> TestResult:
    return TestResult(f"test_{function}", function, 1.0, f"{function} works", PASSED if passed else FAILED,
                      "" if passed else "values differ", "" if passed else kind, tuple(diagnoses))


def graded_row(student: str, questions: list[tuple[str, float, float, list[TestResult]]], *, penalties=(),
               load_error=None, days_late=0, assignment="hw1_scaled_attention"):
    """A graded row whose report is the record of a result with these (function, score, points, tests) questions."""
    scores = tuple(QuestionScore(f, n, points, score, tuple(tests)) for n, (f, score, points, tests) in enumerate(questions, 1))
    raw = sum(q.score for q in scores)
    fraction = 1.0
    for p in penalties:
        fraction *= 1 - p.fraction
    result = GradeResult(assignment, f"{student}.py", scores, sum(q.points for q in scores), raw, raw * fraction,
                         tuple(penalties), load_error, days_late=days_late)
    record = to_record(result)
    return make_row(student=student, assignment=assignment, score=result.score, max_score=result.max_score,
                    raw_score=raw, error=load_error, diagnoses=tuple(record["diagnoses"]), days_late=days_late,
                    report=json.dumps({"result": record}))


def error_row(student: str, message: str, assignment="hw1_scaled_attention"):
    return make_row(student=student, assignment=assignment, status="error", score=0.0, error=message, diagnoses=(),
                    report=json.dumps({"error": message}))


__all__ = ["NO_SCALE", "NO_SHIFT", "Penalty", "error_row", "graded_row", "a_test"]
