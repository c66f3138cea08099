"""Turn the exception a test ended with into a student-facing message, kind and diagnoses."""

from __future__ import annotations

from autograder.engine.results import Diagnosis
from autograder.errors import SubmissionError

#: Kinds for failures that are not SubmissionErrors.
MISMATCH = "mismatch"
CHECK = "check"
HIDDEN_ASSERTION = "assertion"


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
        return error.student_message, MISMATCH, tuple(Diagnosis(d.id, d.hint) for d in diagnoses)
    if hasattr(error, "student_message"):
        return error.student_message, CHECK, ()
    if type(error).__name__ == "CheckFailed" or show_assertions:
        return str(error).strip() or description, CHECK, ()
    return f"check failed: {description}", HIDDEN_ASSERTION, ()
