"""Frame I/O with one started worker, every wait bounded by a deadline, the student's output drained meanwhile.

The client (:mod:`autograder.sandbox.client`) exchanges protocol frames with a worker through a
:class:`_Link`; the bounds on what it reads back (:func:`reply_limits`) are the grader's, never
the worker's.
"""

from __future__ import annotations

import errno
import os
import select
import time

import numpy as np

from autograder.sandbox import protocol
from autograder.sandbox.process import WorkerProcess
from autograder.student_text import clean_text

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

    def receive_reply(self, deadline: float, limits: protocol.Limits, report) -> protocol.Message:
        """The next frame that is not a ``running`` report; each report's header is given to ``report``."""
        while True:
            response = self.receive(deadline, limits)
            if response.header.get("op") != protocol.Op.RUNNING:
                return response
            report(response.header)

    def receive(self, deadline: float, limits: protocol.Limits = PLAIN_REPLY_LIMITS) -> protocol.Message:
        """One frame from the worker, validated and bounded by ``limits``."""
        return protocol.read_message(lambda size: self.read_exact(size, deadline), limits)
