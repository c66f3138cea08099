"""A notebook's namespace as a submission: the in-process adapter nbgrader and otter exports grade with.

On those platforms student code runs in the grading process by design (the notebook's
kernel): there is no sandbox and no process boundary. :class:`NamespaceSubmission` stands
where the sandbox proxy stands in ``attn-course grade``: it calls the functions the notebook
defined, converts and observes each call exactly as the sandboxed worker does (the same
conversion, the same record of modified inputs and returned kinds, the same failure kinds
and messages), gives each call private copies of its inputs, and bounds calls in time with
the course's limits (a per-call alarm, two time-outs per function, a budget for the suite),
so that the hidden tests and the judge reach the same verdicts as in the sandbox.
"""

from __future__ import annotations

import copy
import signal
import threading
import time
import traceback
from contextlib import contextmanager

from autograder.sandbox.call import CallOutcome
from autograder.errors import (
    BadReturn,
    CallTimeout,
    LoadFailed,
    MissingFunction,
    NotImplementedYet,
    StudentException,
)
from autograder.i18n import msg
from autograder.inputs import materialize
from autograder.sandbox.client import MAX_STUDENT_MESSAGE_CHARS, MAX_TIMEOUTS_PER_FUNCTION
from autograder.sandbox.worker import Failure, convert_result, input_snapshots, modified_inputs, returned_kinds, truncate
from autograder.sandbox.reported import reported_message
from autograder.sandbox.standin import bound
from autograder.student_text import clean_text

#: The error raised for each failure kind the worker reports.
FAILURE_ERRORS = {cls.kind: cls for cls in (NotImplementedYet, StudentException, BadReturn, LoadFailed, MissingFunction)}


class _Expired(BaseException):
    """The alarm of the current call rang (a BaseException: student code catching Exception lets it through)."""


def _copied(value):
    """Private copies of a call's inputs (the sandbox's worker receives copies too), generators made."""
    return materialize(copy.deepcopy(value))


def _bounded(text) -> str:
    text = clean_text(text)
    if len(text) > MAX_STUDENT_MESSAGE_CHARS:
        text = "[... truncated ...]\n" + text[-MAX_STUDENT_MESSAGE_CHARS:]
    return text


def _failure_error(failure: Failure):
    return FAILURE_ERRORS[failure.kind](reported_message({"message": failure.message, "said": failure.said}, _bounded))


@contextmanager
def _alarm(seconds: float):
    """Raise :class:`_Expired` in this thread after ``seconds`` (no bound outside the main thread)."""
    if threading.current_thread() is not threading.main_thread() or seconds <= 0:
        yield
        return

    def ring(signum, frame):
        raise _Expired()

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class NamespaceSubmission:
    """The functions of a notebook's global namespace, called the way the sandboxed worker calls them.

    Parameters
    ----------
    namespace : dict
        The notebook's globals (``globals()`` in a cell, ``env`` in an otter test).
    call_timeout_s : float
        Wall clock for one call.
    submission_timeout_s : float
        Wall clock for every call together, counted from the first.
    """

    def __init__(self, namespace: dict, call_timeout_s: float, submission_timeout_s: float):
        self.namespace = namespace
        self.call_timeout_s = call_timeout_s
        self.submission_timeout_s = submission_timeout_s
        self._budget_end: float | None = None
        self._timeouts: dict[str, int] = {}

    def call(self, function: str, *args, **kwargs):
        """``call_observed(...).result``."""
        return self.call_observed(function, *args, **kwargs).result

    def call_observed(self, function: str, *args, **kwargs) -> CallOutcome:
        """Call ``function`` of the namespace on private copies of the inputs; observe what it did.

        Raises
        ------
        SubmissionError
            ``NotImplementedYet``, ``StudentException``, ``BadReturn``, ``MissingFunction``
            or ``CallTimeout``, with the worker's messages.
        """
        seconds = self._allowed(function)
        implementation = self._function(function)
        args, kwargs = _copied(tuple(args)), _copied(dict(kwargs))
        before = input_snapshots(args, kwargs)
        try:
            with _alarm(seconds):
                value = implementation(*args, **kwargs)
        except _Expired:
            self._timeouts[function] = self._timeouts.get(function, 0) + 1
            raise CallTimeout(msg("{function}() did not finish within {seconds} s", function=function,
                                  seconds=f"{seconds:g}")) from None
        except NotImplementedError as error:
            detail = f": {error}" if str(error) else ""
            raise NotImplementedYet(msg("{name}() is not implemented yet (NotImplementedError{detail})", name=function,
                                        detail=detail)) from None
        except SystemExit as error:
            code = repr(error.code) if error.code is not None else ""
            raise StudentException(msg("{name}() called sys.exit({code})", name=function, code=code)) from None
        except Exception as error:  # noqa: BLE001 - the student's exception, reported like the worker does
            raise StudentException(self._traceback(error)) from None
        try:
            result = convert_result(value)
        except Failure as failure:
            raise _failure_error(failure) from None
        except Exception as error:  # noqa: BLE001 - the returned object's own methods raised
            raise BadReturn(msg("the return value could not be converted: {traceback}", traceback=self._traceback(error))) from None
        return CallOutcome(result, tuple(modified_inputs(before, args, kwargs)),
                           **self._returned(value))

    def call_with_standins(self, function: str, standins: dict, args: tuple, kwargs: dict) -> CallOutcome:
        """:meth:`call_observed` with the namespace's ``standins`` names bound to those trusted functions for the call."""
        with bound(self.namespace, standins, lambda name, a, k: standins[name](*a, **k)):
            return self.call_observed(function, *args, **kwargs)

    @staticmethod
    def _returned(value) -> dict:
        kinds = returned_kinds(value)
        return {"container": kinds["container"], "parts": tuple(kinds["parts"])}

    def _allowed(self, function: str) -> float:
        """Seconds this call may take: the call limit, cut to what is left of the budget.

        Raises
        ------
        CallTimeout
            When the budget is spent or the function already timed out too often.
        """
        now = time.monotonic()
        if self._budget_end is None:
            self._budget_end = now + self.submission_timeout_s
        if now >= self._budget_end:
            raise CallTimeout(msg("the submission used up its time budget of {seconds} s", seconds=f"{self.submission_timeout_s:g}"))
        if self._timeouts.get(function, 0) >= MAX_TIMEOUTS_PER_FUNCTION:
            raise CallTimeout(msg("{function}() was not run again: it ran out of time on an earlier test",
                                  function=function))
        return min(self.call_timeout_s, self._budget_end - now)

    def _function(self, name: str):
        found = self.namespace.get(name)
        if found is None:
            raise MissingFunction(msg("the module does not define {name}()", name=name))
        if not callable(found):
            raise MissingFunction(msg("{name} is a {type}, not a function", name=name, type=type(found).__name__))
        return found

    def _traceback(self, error: BaseException) -> str:
        """The traceback restricted to frames of the notebook's own code, like the worker's."""
        frames = [
            summary for frame, summary in zip(traceback.walk_tb(error.__traceback__), traceback.extract_tb(error.__traceback__))
            if frame[0].f_globals is self.namespace
        ]
        lines = traceback.format_exception_only(type(error), error)
        if frames:
            lines = ["Traceback (most recent call last):\n", *traceback.format_list(frames), *lines]
        return truncate("".join(lines).rstrip("\n"))

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self.call(name, *args, **kwargs)

