"""A function that refuses an input its docstring allows: its own ``raise`` or ``assert`` stops a valid call.

The reference accepted the failed call (the hidden tests pass only documented inputs), and the
student's traceback ends on a line of the student's own code that raises or asserts: a check
stricter than the contract (``d_k >= 2`` where 1 is allowed, ``type(n) is int`` where a numpy
integer is a length). What the check refuses is the localisation's to say; the probe names the
line and the error.
"""

from __future__ import annotations

import re

import attn_reference
from autograder.diagnose.case import Case
from autograder.diagnose.probes.finding import Finding
from autograder.errors import StudentException
from autograder.judge.compare import Raised

#: A source line that refuses on purpose.
_REFUSES = re.compile(r"^(raise|assert)\b")
#: The error quoted in the hint is cut to this many characters (it is the student's own text).
ERROR_SHOWN = 80


def student_exception(case: Case) -> StudentException | None:
    """The exception the student's own code raised in the failed call (None for a result, a stub, a timeout...)."""
    error = case.student.error if isinstance(case.student, Raised) else None
    return error if isinstance(error, StudentException) else None  # an untouched stub raises NotImplementedYet


def refuses_on_purpose(error: StudentException) -> bool:
    """Whether the student's line that raised is a ``raise`` or an ``assert`` of their own."""
    frame = error.last_frame
    return frame is not None and _REFUSES.match(frame[1]) is not None


def _another_graded_function(error: StudentException, function: str) -> bool:
    """Whether the refusal is in another graded function the student's calls (what it refuses is then a value the
    student computed, not the caller's input)."""
    inner = error.innermost_function
    return bool(inner) and inner != function and callable(getattr(attn_reference, inner, None))


def rejects_valid_input(case: Case) -> list[Finding]:
    """The call the reference accepts ends on the student's own ``raise``/``assert`` line."""
    error = student_exception(case)
    if error is None or not refuses_on_purpose(error) or _another_graded_function(error, case.function):
        return []
    last = error.last_line
    shown = last if len(last) <= ERROR_SHOWN else last[: ERROR_SHOWN - 1] + "…"
    return [Finding("call.rejects_valid_input", {"line": error.last_frame[0], "error": shown})]


def array_truth_value(case: Case) -> list[Finding]:
    """numpy's "truth value of an array ... is ambiguous" on the student's line: an array used as a condition."""
    error = student_exception(case)
    if error is None or "truth value of an array" not in error.last_line or error.last_frame is None:
        return []
    return [Finding("call.array_truth_value", {"line": error.last_frame[0]})]


#: numpy's error when ``transpose`` is given axes that are not a permutation of all the array's axes.
TRANSPOSE_ERROR = "axes don't match array"


def partial_transpose(case: Case) -> list[Finding]:
    """numpy's "axes don't match array" on the student's line: ``x.transpose(a, b)`` read as PyTorch's swap of two
    axes, where numpy wants an order for every axis."""
    error = student_exception(case)
    if error is None or TRANSPOSE_ERROR not in error.last_line or error.last_frame is None:
        return []
    return [Finding("call.partial_transpose", {"line": error.last_frame[0]})]


#: numpy's errors when a result is written into an operand of another shape (``a @= b``, ``a += b``, ``out=a``).
INPLACE_ERRORS = ("Output operand 0 has a mismatch in its core dimension", "non-broadcastable output operand")


def inplace_product(case: Case) -> list[Finding]:
    """numpy's "Output operand 0 has a mismatch in its core dimension" on the student's line: a product written into
    an operand whose shape it would change (``s @= W``)."""
    error = student_exception(case)
    if error is None or not any(text in error.last_line for text in INPLACE_ERRORS) or error.last_frame is None:
        return []
    return [Finding("call.inplace_product", {"line": error.last_frame[0]})]
