"""Turn the exception a test ended with into a student-facing message, kind and diagnoses."""

from __future__ import annotations

from autograder.engine.results import FAILED, PASSED, Diagnosis, TestResult
from autograder.errors import GraderError, SubmissionError
from autograder.i18n import Message, msg

#: Kinds for failures that are not SubmissionErrors.
MISMATCH = "mismatch"
#: A failure of the contract only: the values were right (the policy: :mod:`autograder.scoring`).
CONTRACT = "contract"
#: Share of a question's points a broken contract costs, once per question (the policy: :mod:`autograder.scoring`).
CONTRACT_SHARE = 0.25
CHECK = "check"
HIDDEN_ASSERTION = "assertion"
#: The mark naming the graded question a test belongs to.
QUESTION_MARKER = "question"


def _check_message(error: BaseException) -> Message | None:
    """The catalog message of a public check's failure (its ``template`` and ``facts``), if it has one."""
    template, facts = getattr(error, "template", None), getattr(error, "facts", None)
    if not isinstance(template, str) or not isinstance(facts, dict):
        return None
    try:
        return Message(template, facts)
    except (KeyError, ValueError, TypeError, IndexError):  # a public test file the student edited
        return None


def describe_failure(error: BaseException, description: str, show_assertions: bool) -> tuple[str, str, tuple[Diagnosis, ...]]:
    """(message, kind, diagnoses) for a failed test.

    Parameters
    ----------
    error : BaseException
        What the test raised.
    description : str
        What the test checks (its docstring's first line).
    show_assertions : bool
        Whether plain assertion messages may be shown (public tests) or only the
        description (hidden tests, whose assertion text could reveal inputs).
    """
    if isinstance(error, SubmissionError):
        return error.student_message, error.kind, ()
    diagnoses = getattr(error, "diagnoses", None)
    if diagnoses is not None and hasattr(error, "student_message"):
        kind = CONTRACT if getattr(error, "contract", False) else MISMATCH
        return error.student_message, kind, tuple(Diagnosis(d.id, d.hint) for d in diagnoses)
    if hasattr(error, "student_message"):
        return error.student_message, CHECK, ()
    checked = _check_message(error)
    if checked is not None:
        return checked, CHECK, ()
    if type(error).__name__ == "CheckFailed" or show_assertions:
        return str(error).strip() or description, CHECK, ()
    return msg("check failed: {description}", description=Message(description)), HIDDEN_ASSERTION, ()


def _submission_outcomes() -> tuple[type[BaseException], ...]:
    """Exceptions a hidden test may end with that are the submission's doing, not the suite's."""
    from autograder.engine.marks import pytest_outcomes

    return (AssertionError, SubmissionError, *pytest_outcomes())


def grader_error_of(error: BaseException | None, test: str, show_assertions: bool) -> GraderError | None:
    """The grader's own failure a test ended with, if any: it stops the run instead of costing points.

    In hidden suites (``show_assertions`` off) only a failed check (an AssertionError, which
    the checks raise), a skip or a SubmissionError is the submission's; anything else the
    test's own code raised is a bug of the suite. Public suites show every failure.
    """
    if error is None or isinstance(error, GraderError):
        return error
    if show_assertions or isinstance(error, _submission_outcomes()):
        return None
    return GraderError(f"{test} raised {type(error).__name__}: {error}")


def question_of(marker) -> str:
    """The graded question a ``question`` mark names ("" for a test without one)."""
    return marker.args[0] if marker and marker.args else ""


def test_result(name: str, marker, function, error: BaseException | None, subject, show_assertions: bool) -> TestResult:
    """One test's :class:`TestResult` from its question mark, its function's docstring, how it ended
    and what the :class:`~autograder.engine.subject.Subject` learned on the way (carried, figures)."""
    question = question_of(marker) or "(unassigned)"
    weight = float(marker.kwargs.get("weight", 1)) if marker else 1.0
    doc = (getattr(function, "__doc__", None) or name).strip().splitlines()[0]
    figures = tuple(subject.figures)
    if error is None:
        return TestResult(name, question, weight, doc, PASSED, carried_from=tuple(subject.carried), figures=figures)
    message, kind, diagnoses = describe_failure(error, doc, show_assertions)
    return TestResult(name, question, weight, doc, FAILED, message, kind, diagnoses, figures=figures)


test_result.__test__ = False  # not a pytest test
