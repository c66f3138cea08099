"""The grader's handle on a sandboxed submission.

:class:`SandboxedSubmission` starts a worker (see :mod:`autograder.sandbox.launcher`),
has it import the student's source, and forwards calls to it. Every failure of the
submission becomes one of the :mod:`autograder.errors` types; the grader never runs
student code, never unpickles anything from the worker, and bounds what it reads.

A call that hangs or kills the worker costs only that call: the worker process group
is SIGKILLed and the next call transparently starts a new worker and reloads the source.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping

import numpy as np

from autograder.sandbox.call import CallOutcome
from autograder.config import Defaults
from autograder.errors import (
    BadReturn,
    CallTimeout,
    GraderError,
    LoadFailed,
    SubmissionError,
    WorkerCrashed,
)
from autograder.i18n import Message, msg
from autograder.inputs import RngSeed
from autograder.sandbox import protocol, wire_values
from autograder.sandbox.answers import Answers
from autograder.sandbox.isolation import Isolation, choose_isolation
from autograder.sandbox.link import PLAIN_REPLY_LIMITS, OutputCapture, _Expired, _Link, _WorkerGone, reply_limits
from autograder.sandbox.process import describe_exit
from autograder.sandbox.reported import MAX_STUDENT_MESSAGE_CHARS, _student_text, reported_error  # noqa: F401
from autograder.sandbox.reported import REPORT_RUNNING_AT, running_report, timed_out_message
from autograder.sandbox.skipped import SkippedStatement, parse_skipped
from autograder.sandbox.spares import take_worker

#: Seconds a fresh worker may take to start (bwrap, interpreter, numpy) before it greets.
WORKER_START_TIMEOUT_S = 20.0
#: Seconds to wait for the exit status of a worker whose pipe closed.
EXIT_STATUS_WAIT_S = 1.0
#: Largest source text sent to the worker, in bytes.
MAX_SOURCE_BYTES = 8 * protocol.MIB
#: After this many timeouts of one function, further calls to it fail at once: a hang costs
#: one call's limit, not one per test (nor the whole submission's time budget). One: a function
#: that hangs on one input rarely finishes on the next, and every timeout holds up a batch job.
MAX_TIMEOUTS_PER_FUNCTION = 1
#: What the exchange that loads the submission is called (in messages, and to tell it from calls).
IMPORT = "import"


def _seed_of(value) -> int | None:
    return value.seed if isinstance(value, RngSeed) else None


class SandboxedSubmission:
    """A student module imported in a sandboxed worker, called from the grader.

    Parameters
    ----------
    module_name : str
        Name the module is registered under in the worker (``sys.modules``).
    source : str
        The module's source text; sent to the worker, never executed here.
    limits : Defaults
        Timeouts and resource limits (course.yml ``defaults``).
    filename : str
        Name shown in the student's tracebacks.
    isolation : Isolation, optional
        Force a level; by default the one the limits ask for, once it is known to work
        (:func:`~autograder.sandbox.isolation.choose_isolation`).

    Examples
    --------
    >>> with SandboxedSubmission("attn", source, Defaults()) as sub:  # doctest: +SKIP
    ...     sub.start()
    ...     weights = sub.softmax(x, axis=-1)
    """

    def __init__(self, module_name: str, source: str, limits: Defaults, filename: str = "<submission>",
                 *, isolation: Isolation | None = None):
        self.module_name = module_name
        self.source = source
        self.limits = limits
        self.filename = filename
        self.isolation = Isolation(isolation) if isolation else choose_isolation(limits)
        self._output = OutputCapture(limits.output_limit_kb * protocol.KIB)
        self._link: _Link | None = None
        self._budget_end: float | None = None
        self._load_error: str | None = None
        self._closed = False
        self._next_id = 0
        self._running: tuple[str, int] | None = None  # where the current call is, as its worker last said
        self._timeouts: dict[str | tuple[str, str], int] = {}
        #: Top-level statements that raised at import and were skipped (from the first load), and how many more.
        self.skipped: tuple[SkippedStatement, ...] = ()
        self.skipped_more = 0
        self._loaded_once = False

    # --- public API ---------------------------------------------------------------------

    @property
    def captured_output(self) -> str:
        """The student's stdout and stderr so far (all workers), truncated to ``output_limit_kb``."""
        if self._link is not None:
            self._link.drain_output()
        return self._output.text

    @property
    def worker_pid(self) -> int | None:
        """Host pid of the running worker's process (bwrap's, under bwrap), if one runs."""
        return self._link.worker.pid if self._link is not None else None

    def start(self) -> None:
        """Start the worker and import the submission in it; starts the submission's time budget.

        Raises
        ------
        LoadFailed
            When the module cannot be imported (the message says why).
        GraderError
            When the sandbox itself cannot start.
        """
        try:
            self._ensure_worker()
        except CallTimeout as error:
            raise LoadFailed(error.student_message) from None

    def call(self, function: str, *args, **kwargs) -> np.ndarray | tuple[np.ndarray, ...]:
        """``call_observed(...).result``: the result of ``function(*args, **kwargs)`` in the worker."""
        return self.call_observed(function, *args, **kwargs).result

    def call_observed(self, function: str, *args, **kwargs) -> CallOutcome:
        """Call ``function(*args, **kwargs)`` in the worker; return its result and what else it did.

        Arguments may be ndarrays, numpy scalars, None, bool, int, float, str, tuples and
        lists of these, and :class:`~autograder.inputs.RngSeed`.

        Returns
        -------
        CallOutcome
            The result as plain arrays of bool, int or float values (0-d for scalars),
            the arguments the call modified in place, and the kind of object it returned.

        Raises
        ------
        SubmissionError
            ``NotImplementedYet``, ``StudentException``, ``BadReturn``, ``MissingFunction``,
            ``CallTimeout``, ``WorkerCrashed`` or ``LoadFailed`` (when a restart cannot reload).
        TypeError
            When an argument cannot be sent (a grader bug, not the student's).
        """
        return self._call(function, args, kwargs, None)

    def call_with_standins(self, function: str, standins: Mapping[str, Callable], args: tuple, kwargs: dict) -> CallOutcome:
        """:meth:`call_observed`, with the module's ``standins`` names answered by trusted functions here.

        For this one call, each name of ``standins`` in the student's module is bound to a
        stand-in whose calls the grader answers with ``standins[name]`` (run in this
        process on the arguments decoded from the worker); see :mod:`autograder.sandbox.answers`.
        A function that times out here is counted apart from its plain calls.
        """
        return self._call(function, tuple(args), dict(kwargs), Answers(standins))

    def _call(self, function: str, args: tuple, kwargs: dict, answers: Answers | None) -> CallOutcome:
        arrays: list[np.ndarray] = []
        header = {
            "op": protocol.Op.CALL,
            "function": function,
            "args": wire_values.encode_value(tuple(args), arrays, _seed_of),
            "kwargs": {name: wire_values.encode_value(v, arrays, _seed_of) for name, v in kwargs.items()},
        }
        if answers is not None:
            header["standins"] = answers.names
        counted = function if answers is None else (function, "stand-ins")  # re-checks time out apart
        if self._timeouts.get(counted, 0) >= MAX_TIMEOUTS_PER_FUNCTION:
            if self._budget_end is not None:
                self._check_budget()  # a spent budget is the more useful thing to report
            raise CallTimeout(msg("{function}() was not run again: it ran out of time on an earlier test",
                                  function=function))
        self._ensure_worker()
        try:
            message = self._exchange(header, arrays, self._deadline(self.limits.call_timeout_s), f"{function}()",
                                     reply_limits(arrays), answers)
        except CallTimeout:
            self._timeouts[counted] = self._timeouts.get(counted, 0) + 1
            raise
        try:
            result = wire_values.decode_result(message.header.get("result"), message.arrays)
            return CallOutcome.from_report(result, message.header.get("observed"))
        except protocol.ProtocolError as error:
            self._kill()
            raise WorkerCrashed(msg("the worker sent a malformed result for {function}() ({error}); it was restarted",
                                    function=function, error=str(error))) from None

    def ping(self) -> None:
        """Round-trip an empty request (starts the worker if needed)."""
        self._ensure_worker()
        self._exchange({"op": protocol.Op.PING}, [], self._deadline(self.limits.call_timeout_s), "ping")

    def close(self) -> None:
        """Kill the worker, keep the captured output. Idempotent."""
        self._closed = True
        self._kill()

    def __getattr__(self, name: str):
        """``sub.softmax(x)`` is ``sub.call("softmax", x)``."""
        if name.startswith("_"):
            raise AttributeError(name)
        return functools.partial(self.call, name)

    def __enter__(self) -> "SandboxedSubmission":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __del__(self) -> None:
        if self.__dict__.get("_link") is not None:
            try:
                self._kill()
            except Exception:  # noqa: BLE001 - nothing sensible to do at garbage collection
                pass

    # --- the worker's life ---------------------------------------------------------------

    def _ensure_worker(self) -> None:
        """Start the budget on first use, then make sure a loaded worker is running.

        Raises
        ------
        CallTimeout
            When the submission's time budget is spent.
        LoadFailed
            When the module could not be (re)loaded, now or earlier.
        """
        if self._closed:
            raise RuntimeError("this SandboxedSubmission is closed")
        if self._budget_end is None:
            self._budget_end = time.monotonic() + self.limits.submission_timeout_s
        self._check_budget()
        if self._load_error is not None:
            raise LoadFailed(self._load_error)
        if self._link is None:
            self._launch()

    def _deadline(self, timeout_s: float) -> float:
        return min(time.monotonic() + timeout_s, self._budget_end)

    def _budget_message(self) -> Message:
        return msg("the submission used up its time budget of {seconds} s", seconds=f"{self.limits.submission_timeout_s:g}")

    def _check_budget(self) -> None:
        if time.monotonic() >= self._budget_end:
            self._kill()
            raise CallTimeout(self._budget_message())

    def _kill(self) -> None:
        """SIGKILL the worker (if any), keep its last output, forget it."""
        link, self._link = self._link, None
        if link is None:
            return
        link.worker.kill()
        link.drain_output()
        link.worker.close_pipes()

    def _launch(self) -> None:
        """Start a worker, wait for its greeting, and load the source.

        Raises
        ------
        LoadFailed
            Remembered: later calls fail the same way without a new worker.
        CallTimeout
            When the time budget runs out meanwhile (not remembered as a load failure).
        """
        source_bytes = len(self.source.encode("utf-8", errors="replace"))
        if source_bytes > MAX_SOURCE_BYTES:
            self._load_error = msg("the source has {size} bytes, more than the {limit} accepted", size=str(source_bytes),
                                   limit=str(MAX_SOURCE_BYTES))
            raise LoadFailed(self._load_error)
        self._start_link()
        header = {"op": protocol.Op.LOAD, "module": self.module_name, "source": self.source, "filename": self.filename}
        try:
            reply = self._exchange(header, [], self._deadline(self.limits.call_timeout_s), IMPORT)
        except CallTimeout:
            raise
        except SubmissionError as error:
            self._kill()
            self._load_error = error.student_message
            raise LoadFailed(self._load_error) from None
        if not self._loaded_once:
            self.skipped, self.skipped_more = parse_skipped(reply.header)
            self._loaded_once = True

    def _start_link(self) -> None:
        """Start a worker and wait for its greeting (a subclass may start another kind of worker)."""
        self._link = _Link(take_worker(self.limits, self.isolation), self._output)
        self._await_greeting()

    def _await_greeting(self) -> None:
        """Wait for the worker's hello: from here on, failures are the submission's."""
        deadline = self._deadline(WORKER_START_TIMEOUT_S)
        try:
            hello = self._link.receive(deadline)
        except (_Expired, _WorkerGone, protocol.ProtocolError) as error:
            link = self._link
            self._kill()
            if time.monotonic() >= self._budget_end:
                raise CallTimeout(self._budget_message()) from None
            detail = f"{type(error).__name__} {error}".strip()
            raise GraderError(f"the sandbox worker ({self.isolation}) did not start: {detail}\n{link.output.text}") from None
        if hello.header.get("op") != protocol.Op.HELLO:
            self._kill()
            raise GraderError(f"the sandbox worker greeted with {hello.header!r}")

    def _exchange(self, header: dict, arrays: list[np.ndarray], deadline: float, what: str,
                  limits: protocol.Limits = PLAIN_REPLY_LIMITS, answers: Answers | None = None) -> protocol.Message:
        """Send one request and return its successful response (bounded by ``limits``).

        Stand-in requests that arrive before the response are answered with ``answers``;
        without ``answers``, one is a protocol violation.

        Raises
        ------
        SubmissionError
            The worker's reported failure, or a timeout, crash or protocol violation
            (after which the worker is killed and will be restarted). During the import
            (``what == "import"``) the caller turns these into LoadFailed.
        """
        self._next_id += 1
        header = {**header, "id": self._next_id}
        if header.get("op") == protocol.Op.CALL:  # the worker says where it is shortly before the limit
            header["report_after_s"] = round(max(deadline - time.monotonic(), 0) * REPORT_RUNNING_AT, 3)
        self._running = None
        try:
            self._link.send(protocol.encode_message(header, arrays), deadline)
            response = self._link.receive_reply(deadline, limits, self._keep_running)
            while response.header.get("op") == protocol.Op.REFERENCE and answers is not None:
                self._link.send(answers.reply(response), deadline)
                response = self._link.receive_reply(deadline, limits, self._keep_running)
        except _Expired:
            raise self._timed_out(what) from None
        except _WorkerGone:
            raise self._crashed(what) from None
        except protocol.RejectedArray as error:
            self._kill()
            raise BadReturn(msg("{what} returned {reason}", what=what, reason=error.reason)) from None
        except protocol.ProtocolError as error:
            self._kill()
            raise WorkerCrashed(msg("the worker broke the protocol during {what} ({error}); it was restarted",
                                    what=what, error=str(error))) from None
        if response.header.get("id") != self._next_id:
            self._kill()
            raise WorkerCrashed(msg("the worker answered out of turn during {what}; it was restarted", what=what))
        if response.header.get("ok") is not True:
            raise self._reported(response.header, what)
        return response

    def _keep_running(self, header: dict) -> None:
        self._running = running_report(header, self._next_id) or self._running

    def _reported(self, header: dict, what: str) -> SubmissionError:
        error = reported_error(header)
        if error is None:
            self._kill()
            return WorkerCrashed(msg("the worker reported an unknown failure during {what}; it was restarted", what=what))
        return error

    def _timed_out(self, what: str) -> SubmissionError:
        self._kill()
        if time.monotonic() >= self._budget_end:
            return CallTimeout(msg("{what} was stopped: {budget}", what=what, budget=self._budget_message()))
        seconds = f"{self.limits.call_timeout_s:g}"
        if what == IMPORT:
            return LoadFailed(msg("importing the module did not finish within {seconds} s "
                                  "(an endless loop or a long computation at top level?)", seconds=seconds))
        return CallTimeout(timed_out_message(what, seconds, self._running))

    def _crashed(self, what: str) -> SubmissionError:
        worker = self._link.worker
        status = worker.exit_status(EXIT_STATUS_WAIT_S)
        self._kill()
        if status is None:
            how = msg("closed its pipe")
        elif status == 0:
            how = msg("exited with status 0 (sys.exit or os._exit?)")
        else:
            how = describe_exit(status, self.isolation)
        if what == IMPORT:
            return LoadFailed(msg("the worker {how} while importing the module", how=how))
        return WorkerCrashed(msg("the worker {how} during {what}; it was restarted", how=how, what=what))
