"""What hidden tests call: run the student's function in the worker and compare with the reference."""

from __future__ import annotations

import numpy as np

from autograder.errors import BadReturn, StudentException
from autograder.grade.compare import Tolerance, check_against_reference

#: Tolerance floor for float32 inputs: float32 arithmetic differs in the 6th or 7th digit.
FLOAT32_TOLERANCE = Tolerance(rtol=1e-4, atol=1e-6)


def float32_tolerance(tol: Tolerance) -> Tolerance:
    """The looser of the course's tolerance and the float32 floor."""
    return Tolerance(max(tol.rtol, FLOAT32_TOLERANCE.rtol), max(tol.atol, FLOAT32_TOLERANCE.atol))


class CheckFailed(AssertionError):
    """A hidden check failed with a message written for the student (no hidden inputs in it)."""

    def __init__(self, student_message: str):
        super().__init__(student_message)
        self.student_message = student_message


def expect(condition: bool, student_message: str) -> None:
    """Fail the test with ``student_message`` unless ``condition`` holds.

    Raises
    ------
    CheckFailed
    """
    if not condition:
        raise CheckFailed(student_message)


def expect_reference(submission, tol: Tolerance, function: str, *args, what: str = "", **kwargs):
    """Call ``function`` in the submission and require the reference's result.

    A student exception is compared with the mutants too (some known bugs raise on
    batched inputs) and an unusable return value is reported as a mismatch; a timeout,
    crash or unimplemented stub propagates as it is.

    Returns
    -------
    The student's result (array or tuple of arrays), for further checks.

    Raises
    ------
    autograder.grade.compare.Mismatch
        When the result differs from the reference's.
    """
    try:
        actual = submission.call(function, *args, **kwargs)
    except (StudentException, BadReturn) as error:
        actual = error
    check_against_reference(function, args, kwargs, actual, tol, what=what)
    return actual


def expect_dtype(actual, dtype, what: str) -> None:
    """Require ``actual`` (or each array of a tuple) to have ``dtype``.

    Raises
    ------
    CheckFailed
        Naming the dtype expected and got.
    """
    parts = actual if isinstance(actual, tuple) else (actual,)
    for part in parts:
        got = np.asarray(part).dtype
        expect(got == dtype, f"{what}: expected dtype {np.dtype(dtype)}, got {got}")
