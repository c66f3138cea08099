"""The grader's handle on a sandboxed submission.

:class:`SandboxedSubmission` starts a worker (see :mod:`autograder.sandbox.launcher`),
has it import the student's source, and forwards calls to it. Every failure of the
submission becomes one of the :mod:`autograder.errors` types; the grader never runs
student code, never unpickles anything from the worker, and bounds what it reads.

A call that hangs or kills the worker costs only that call: the worker process group
is SIGKILLed and the next call transparently starts a new worker and reloads the source.
"""

from __future__ import annotations

import errno
import functools
import os
import select
import time
from collections.abc import Callable, Mapping

import numpy as np

from autograder.call import CallOutcome
from autograder.config import Defaults
from autograder.errors import (
    BadReturn,
    CallTimeout,
    GraderError,
    LoadFailed,
    MissingFunction,
    NotImplementedYet,
    StudentException,
    SubmissionError,
    WorkerCrashed,
)
from autograder.i18n import Message, msg
from autograder.inputs import RngSeed
from autograder.sandbox import protocol
from autograder.sandbox.answers import Answers
from autograder.sandbox.isolation import Isolation, choose_isolation
from autograder.sandbox.process import WorkerProcess, describe_exit
from autograder.sandbox.reported import reported_message
from autograder.sandbox.skipped import SkippedStatement, parse_skipped
from autograder.student_text import clean_text
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
#: Longest function name taken from the worker (where a failure was raised).
MAX_NAME_CHARS = 200
#: Longest message taken from the worker into a student-facing error.
MAX_STUDENT_MESSAGE_CHARS = 8000
#: Largest single read from a pipe.
READ_CHUNK_BYTES = protocol.MIB
#: Most reads of the output pipe in one go.
MAX_DRAIN_READS = 64
MS_PER_S = 1000
#: A reply to a call may carry this much whatever the inputs (a causal mask from an int, say)...
MIN_REPLY_BYTES = 16 * protocol.MIB
#: ... and this many times the bytes of the arrays sent: attention weights outgrow their inputs.
REPLY_BYTES_PER_INPUT_BYTE = 16
#: Bounds on a reply that carries no arrays (the greeting, load, ping).
PLAIN_REPLY_LIMITS = protocol.Limits(max_array_bytes=0, max_message_bytes=0, max_arrays=0, kinds=protocol.RESULT_KINDS)


def reply_limits(arrays: list[np.ndarray]) -> protocol.Limits:
    """Bounds on the reply to a call that sends ``arrays``: what the call can legitimately return.

    The grader allocates nothing beyond them: a forged reply larger than this is refused
    when its length prefix is read.
    """
    bound = max(MIN_REPLY_BYTES, REPLY_BYTES_PER_INPUT_BYTE * sum(a.nbytes for a in arrays))
    return protocol.Limits(max_array_bytes=bound, max_message_bytes=bound, kinds=protocol.RESULT_KINDS)

#: What the exchange that loads the submission is called (in messages, and to tell it from calls).
IMPORT = "import"
_WORKER_ERRORS = {
    cls.kind: cls for cls in (NotImplementedYet, StudentException, BadReturn, LoadFailed, MissingFunction)
}


class _Expired(Exception):
    """The deadline of the current exchange passed."""


class _WorkerGone(Exception):
    """The worker closed its end of a pipe (it died, or closed the fd itself)."""


class OutputCapture:
    """The student's stdout and stderr, kept up to a byte limit and never parsed."""

    def __init__(self, limit_bytes: int):
        self.limit_bytes = limit_bytes
        self._data = bytearray()
        self.truncated = False

    def feed(self, chunk: bytes) -> None:
        """Keep what fits of ``chunk``; note that the rest was dropped."""
        room = self.limit_bytes - len(self._data)
        self._data += chunk[: max(room, 0)]
        self.truncated |= len(chunk) > room

    @property
    def text(self) -> str:
        """Everything kept, decoded leniently, with a note when output was dropped."""
        text = clean_text(self._data.decode("utf-8", errors="replace"))
        if self.truncated:
            text += f"\n[... output truncated at {self.limit_bytes // protocol.KIB} KiB ...]\n"
        return text


class _Link:
    """Deadline-bounded frame I/O with one worker, draining its output meanwhile."""

    def __init__(self, worker: WorkerProcess, output: OutputCapture):
        self.worker = worker
        self.output = output
        self._output_open = True

    def drain_output(self) -> None:
        """Read the output that is waiting, without blocking and at most a bounded amount.

        The bound keeps a worker that prints as fast as the grader reads from holding
        the grader here; the rest is read at the next chance.
        """
        for _ in range(MAX_DRAIN_READS):
            if not self._output_open:
                return
            try:
                chunk = os.read(self.worker.output_fd, READ_CHUNK_BYTES)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self._output_open = False
                return
            self.output.feed(chunk)

    def _wait(self, deadline: float, fd: int, event: int) -> None:
        """Block until ``fd`` is ready for ``event`` (or hung up), draining output meanwhile."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Expired
            poller = select.poll()
            poller.register(fd, event)
            if self._output_open:
                poller.register(self.worker.output_fd, select.POLLIN)
            ready = dict(poller.poll(remaining * MS_PER_S))
            if self.worker.output_fd in ready:
                self.drain_output()
            if fd in ready:
                return

    def send(self, data: bytes, deadline: float) -> None:
        """Write all of ``data`` to the request pipe before ``deadline``."""
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.worker.request_fd, view):]
            except BlockingIOError:
                self._wait(deadline, self.worker.request_fd, select.POLLOUT)
            except OSError as error:
                if error.errno in (errno.EPIPE, errno.EBADF):
                    raise _WorkerGone from None
                raise

    def read_exact(self, size: int, deadline: float) -> bytes:
        """Exactly ``size`` bytes of the response pipe before ``deadline``."""
        data = bytearray()
        while len(data) < size:
            try:
                chunk = os.read(self.worker.response_fd, min(size - len(data), READ_CHUNK_BYTES))
            except BlockingIOError:
                self._wait(deadline, self.worker.response_fd, select.POLLIN)
                continue
            if not chunk:
                raise _WorkerGone
            data += chunk
        return bytes(data)

    def receive(self, deadline: float, limits: protocol.Limits = PLAIN_REPLY_LIMITS) -> protocol.Message:
        """One frame from the worker, validated and bounded by ``limits``."""
        return protocol.read_message(lambda size: self.read_exact(size, deadline), limits)


def _seed_of(value) -> int | None:
    return value.seed if isinstance(value, RngSeed) else None


def _student_text(message) -> str:
    """``message`` as clean text (no lone surrogates, nothing that steers a display) of bounded length."""
    text = clean_text(message)
    if len(text) > MAX_STUDENT_MESSAGE_CHARS:
        return "[... truncated ...]\n" + text[-MAX_STUDENT_MESSAGE_CHARS:]
    return text


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
            "args": protocol.encode_value(tuple(args), arrays, _seed_of),
            "kwargs": {name: protocol.encode_value(v, arrays, _seed_of) for name, v in kwargs.items()},
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
            result = protocol.decode_result(message.header.get("result"), message.arrays)
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
        try:
            self._link.send(protocol.encode_message(header, arrays), deadline)
            response = self._link.receive(deadline, limits)
            while response.header.get("op") == protocol.Op.REFERENCE and answers is not None:
                self._link.send(answers.reply(response), deadline)
                response = self._link.receive(deadline, limits)
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

    def _reported(self, header: dict, what: str) -> SubmissionError:
        cls = _WORKER_ERRORS.get(header.get("kind"))
        if cls is None:
            self._kill()
            return WorkerCrashed(msg("the worker reported an unknown failure during {what}; it was restarted", what=what))
        error = cls(reported_message(header, _student_text))
        raised = header.get("raised_in")
        error.raised_in = raised[:MAX_NAME_CHARS] if isinstance(raised, str) else ""
        return error

    def _timed_out(self, what: str) -> SubmissionError:
        self._kill()
        if time.monotonic() >= self._budget_end:
            return CallTimeout(msg("{what} was stopped: {budget}", what=what, budget=self._budget_message()))
        seconds = f"{self.limits.call_timeout_s:g}"
        if what == IMPORT:
            return LoadFailed(msg("importing the module did not finish within {seconds} s "
                                  "(an endless loop or a long computation at top level?)", seconds=seconds))
        return CallTimeout(msg("{what} did not finish within {seconds} s; the worker was restarted", what=what, seconds=seconds))

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
