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
from autograder.i18n import Message
from autograder.student_text import clean_text

#: How deep catalog messages may nest in one report, and the longest template accepted.
MAX_DEPTH = 4
MAX_TEMPLATE_CHARS = 300
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
