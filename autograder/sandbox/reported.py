"""A failure the worker reported, as a message in the student's language (or as the text it sent).

The worker sends its English text and, for its own sentences (not a student's traceback),
the catalog message behind it (``said``: ``{"msgid", "facts"}``, see
:func:`autograder.sandbox.worker.said`). Both come from inside the sandbox, so both are
untrusted: the message is rebuilt only from text facts, each cleaned and bounded like any
student text, nested at most :data:`MAX_DEPTH` deep, and must give back the very English
text sent; anything else falls back to that text alone.
"""

from __future__ import annotations

from typing import Callable

from autograder.errors import BadReturn, LoadFailed, MissingFunction, NotImplementedYet, StudentException, SubmissionError
from autograder.i18n import Message, msg
from autograder.student_text import clean_text

#: How deep catalog messages may nest in one report, and the longest template accepted.
MAX_DEPTH = 4
MAX_TEMPLATE_CHARS = 300
#: Share of a call's time after which the worker says which of the student's functions it is running.
REPORT_RUNNING_AT = 0.9
#: Longest function name taken from the worker (where a failure was raised).
MAX_NAME_CHARS = 200
#: Longest message taken from the worker into a student-facing error.
MAX_STUDENT_MESSAGE_CHARS = 8000
_WORKER_ERRORS = {
    cls.kind: cls for cls in (NotImplementedYet, StudentException, BadReturn, LoadFailed, MissingFunction)
}


class _Unusable(ValueError):
    """The report's ``said`` is not a message the grader can rebuild."""


def _rebuilt(data, clean: Callable[[object], str], depth: int = 0) -> Message | str:
    if not isinstance(data, dict):
        return clean(data)
    template, facts = data.get("msgid"), data.get("facts")
    if depth >= MAX_DEPTH or not isinstance(template, str) or len(template) > MAX_TEMPLATE_CHARS or not isinstance(facts, dict):
        raise _Unusable(template)
    try:
        return Message(template, {str(name): _rebuilt(fact, clean, depth + 1) for name, fact in facts.items()})
    except (KeyError, ValueError, IndexError, TypeError) as error:
        raise _Unusable(template) from error


def reported_message(header: dict, clean: Callable[[object], str]) -> Message | str:
    """The message of a failure header: its catalog message when it is a sound one, else its text, cleaned."""
    text = clean(header.get("message", ""))
    try:
        message = _rebuilt(header.get("said"), clean) if isinstance(header.get("said"), dict) else text
    except _Unusable:
        return text
    return message if message == text else text


def _student_text(message) -> str:
    """``message`` as clean text (no lone surrogates, nothing that steers a display) of bounded length."""
    text = clean_text(message)
    if len(text) > MAX_STUDENT_MESSAGE_CHARS:
        return "[... truncated ...]\n" + text[-MAX_STUDENT_MESSAGE_CHARS:]
    return text


def reported_error(header: dict) -> SubmissionError | None:
    """The error a failure header reports, with the function it was raised in; None for an unknown kind."""
    cls = _WORKER_ERRORS.get(header.get("kind"))
    if cls is None:
        return None
    error = cls(reported_message(header, _student_text))
    raised = header.get("raised_in")
    error.raised_in = raised[:MAX_NAME_CHARS] if isinstance(raised, str) else ""
    return error


def running_report(header: dict, request_id: int) -> tuple[str, int] | None:
    """(function, line) of a worker's ``running`` report about request ``request_id``; None for another or a malformed one.

    The worker is untrusted: the name must be an identifier of bounded length, the line a positive int.
    """
    function, line = header.get("function"), header.get("line")
    if header.get("id") != request_id or not isinstance(function, str) or not function.isidentifier():
        return None
    if len(function) > MAX_NAME_CHARS or isinstance(line, bool) or not isinstance(line, int) or line < 1:
        return None
    return function, line


def timed_out_message(what: str, seconds: str, running: tuple[str, int] | None) -> Message:
    """Why a call (``what``: ``f()``) was stopped at its limit, naming where it was when the worker said (``running``)."""
    if running is None:
        return msg("{what} did not finish within {seconds} s; the worker was restarted", what=what, seconds=seconds)
    function, line = running
    if f"{function}()" != what:
        return msg("{what} did not finish within {seconds} s: it was running {function}() (line {line}) when it was "
                   "stopped; the worker was restarted", what=what, seconds=seconds, function=function, line=str(line))
    return msg("{what} did not finish within {seconds} s: it was at line {line} when it was stopped; the worker was "
               "restarted", what=what, seconds=seconds, line=str(line))
