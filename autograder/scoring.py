"""Points: the one place that says how test results become a score.

Partial credit: a question's score is its points times the weighted share of its tests
that passed (each test's weight comes from its ``question`` marker, 1 by default). A
question with no tests scores 0. Penalties (disallowed imports, lateness) multiply the
total and are applied after the questions are summed.
"""

from __future__ import annotations

from dataclasses import dataclass

from autograder.config import Assignment
from autograder.engine.results import TestResult
from autograder.i18n import Message, msg_n

#: Scores are rounded to this many decimals so reports and gradebooks agree.
SCORE_DECIMALS = 4


@dataclass(frozen=True)
class QuestionScore:
    """The score of one question and the tests behind it."""

    function: str
    number: int
    points: float
    score: float
    tests: tuple[TestResult, ...]

    @property
    def passed(self) -> int:
        return sum(t.passed for t in self.tests)

    @property
    def failed_tests(self) -> tuple[TestResult, ...]:
        return tuple(t for t in self.tests if not t.passed)


def points_message(points: float) -> Message:
    """``points`` as a phrase in every language: "1 point", "2 points", "1.5 points".

    Parameters
    ----------
    points : float
        A question's (or an assignment's) points, formatted with ``:g``.

    Returns
    -------
    Message
        The catalog's plural entry; its count is the points when they are whole, else 2
        (English says "1.5 points": only exactly one point is singular).
    """
    count = int(points) if float(points).is_integer() else 2
    return msg_n("{points} point", "{points} points", count, points=f"{points:g}")


def rounded_numbers(data: object, decimals: int = SCORE_DECIMALS) -> object:
    """JSON data with every float in it rounded to ``decimals`` (``0.30000000000000004`` -> ``0.3``).

    Parameters
    ----------
    data : object
        JSON data: dicts, lists, strings, numbers, booleans, None.
    decimals : int, default SCORE_DECIMALS
        The decimals every reported score has.

    Returns
    -------
    object
        The same data with its floats rounded (ints, booleans and strings as they are).
    """
    if isinstance(data, float):
        return round(data, decimals)
    if isinstance(data, dict):
        return {key: rounded_numbers(value, decimals) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return [rounded_numbers(value, decimals) for value in data]
    return data


def question_fraction(tests: list[TestResult]) -> float:
    """Weighted share of ``tests`` that passed (0 for no tests)."""
    total = sum(t.weight for t in tests)
    return sum(t.weight for t in tests if t.passed) / total if total else 0.0


def score_questions(assignment: Assignment, results: list[TestResult]) -> list[QuestionScore]:
    """One :class:`QuestionScore` per question of the assignment, in course.yml order."""
    scores = []
    for number, question in enumerate(assignment.questions, start=1):
        tests = [r for r in results if r.question == question.function]
        score = round(question.points * question_fraction(tests), SCORE_DECIMALS)
        scores.append(QuestionScore(question.function, number, question.points, score, tuple(tests)))
    return scores


def apply_penalties(raw_score: float, penalties: list[float]) -> float:
    """The score after each penalty fraction (0..1) removes its share, in turn."""
    score = raw_score
    for fraction in penalties:
        score *= 1.0 - fraction
    return round(max(score, 0.0), SCORE_DECIMALS)
