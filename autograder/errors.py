"""The one domain error type of grading, and its kinds.

Everything that goes wrong *because of the submission* is a :class:`SubmissionError`:
it costs the tests it touches and becomes a result with a message for the student.
Everything that goes wrong *in the grader itself* is a :class:`GraderError`: it stops
the run with a non-zero exit code. The command line turns a ``GraderError`` into a
one-paragraph message for the user in one place (:mod:`autograder.cli`); nothing below it
prints or exits.
"""

from __future__ import annotations

import re


class SubmissionError(Exception):
    """The submission failed a call: raised, hung, crashed, or returned something unusable.

    Attributes
    ----------
    kind : str
        Stable id of the failure, e.g. ``"timeout"``; used in reports and the gradebook.
    student_message : str
        One plain sentence (or a short traceback) safe to show the student.
    """

    kind = "error"
    #: The student's function whose own line raised it, when the worker said (for a stub: the stub itself).
    raised_in = ""

    def __init__(self, student_message: str):
        super().__init__(student_message)
        self.student_message = student_message


class NotImplementedYet(SubmissionError):
    """The function still raises NotImplementedError (an untouched stub)."""

    kind = "not_implemented"


class StudentException(SubmissionError):
    """The student's code raised an exception; the message carries its traceback."""

    kind = "exception"

    @property
    def last_line(self) -> str:
        """The traceback's last line, ``Type: message``: what two failures must share to be the same."""
        lines = [line for line in self.student_message.splitlines() if line.strip()]
        return lines[-1].strip() if lines else ""

    @property
    def last_frame(self) -> tuple[str, str] | None:
        """(line number, source line) of the traceback's last frame, the student's line that raised; None without one."""
        frames = re.findall(r'^\s*File "[^"]*", line (\d+), in \w+\s*\n\s*(.*)$', self.student_message, flags=re.MULTILINE)
        return (frames[-1][0], frames[-1][1].strip()) if frames else None

    @property
    def innermost_function(self) -> str:
        """The student's function in which the exception was raised (the last traceback frame), or ""."""
        frames = re.findall(r'^\s*File "[^"]*", line \d+, in (\w+)\s*$', self.student_message, flags=re.MULTILINE)
        return frames[-1] if frames else ""


class CallTimeout(SubmissionError):
    """One call took longer than ``call_timeout_s``; the worker was killed and restarted."""

    kind = "timeout"


class WorkerCrashed(SubmissionError):
    """The worker died during a call (memory, signal, ``os._exit``); it is restarted."""

    kind = "crashed"


class BadReturn(SubmissionError):
    """The function returned something that is not a real numeric array (or tuple of them)."""

    kind = "bad_return"


class LoadFailed(SubmissionError):
    """The submission could not be read or imported (syntax error, top-level crash, ...)."""

    kind = "load_failed"


class MissingFunction(SubmissionError):
    """The module does not define the graded function."""

    kind = "missing_function"


class GraderError(Exception):
    """The grader itself could not run (bad course.yml, missing hidden tests, no sandbox).

    Its message is shown to the user as it is, without a traceback: it says what is wrong
    and how to fix it.
    """


class ConfigError(GraderError, ValueError):
    """course.yml is missing, not YAML, or does not fit the schema (or names an unknown assignment)."""


class AmbiguousSubmission(GraderError):
    """A folder or zip holds several changed files that could each be the submission.

    Not the grader's fault, but no score can be given until a person says which file
    counts: like a GraderError it stops ``check`` and ``grade`` with a non-zero exit, and
    becomes an error row in a batch.
    """
