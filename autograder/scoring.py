"""Points: the one place that says how test results become a score.

Partial credit: a question's score is its points times the weighted share of its tests
whose values were right (each test's weight comes from its ``question`` marker, 1 by
default). A question with no tests scores 0. Penalties (disallowed imports, lateness)
multiply the total and are applied after the questions are summed.

One penalty policy for every assignment: a broken contract (a dtype other than the
documented one, a list instead of an array, an input modified in place, a size-1 axis too
many or too few with the right values) costs a fixed :data:`CONTRACT_SHARE` of the
question, once, however many tests show it; a test that failed only its contract counts as
right for the values. Value errors cost the rest, in proportion to the tests they fail.
"""

from __future__ import annotations

from dataclasses import dataclass

from autograder.config import Assignment
from autograder.engine.outcome import CONTRACT, CONTRACT_SHARE  # noqa: F401 - CONTRACT_SHARE: the policy's share, re-exported
from autograder.engine.results import TestResult
from autograder.i18n import Message, msg_n

#: Scores are rounded to this many decimals so reports and gradebooks agree.
SCORE_DECIMALS = 4
#: Diagnoses that name a broken contract (:data:`autograder.grade.expect.PROPERTY_PROBLEMS`, and results of another
#: dtype or order). Not every engine bug is one: ``call.rejects_valid_input`` is a value failure like any other.
CONTRACT_DIAGNOSES = frozenset({"call.modifies_input", "call.returns_list", "call.float32_promoted", "call.wrong_dtype",
                                "call.not_float", "call.outputs_swapped"})


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


def breaks_contract(test: TestResult) -> bool:
    """Whether a test shows a broken contract: it failed only its contract, or a contract diagnosis came with wrong values."""
    return test.kind == CONTRACT or any(d.id in CONTRACT_DIAGNOSES for d in test.diagnoses)


def question_fraction(tests: list[TestResult]) -> float:
    """Share of a question's points its ``tests`` earn (0 for no tests): the module's penalty policy.

    The weighted share of tests whose values were right (passed, or failed only their
    contract), less :data:`CONTRACT_SHARE` once when any test shows a broken contract.
    """
    total = sum(t.weight for t in tests)
    if not total:
        return 0.0
    right = sum(t.weight for t in tests if t.passed or t.kind == CONTRACT) / total
    return max(right - CONTRACT_SHARE, 0.0) if any(breaks_contract(t) for t in tests) else right


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
