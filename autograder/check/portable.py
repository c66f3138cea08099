"""Public checks without the sandbox: the student's code in a plain child process, on Linux, macOS or Windows.

Public checks run the student's own code on the student's own machine with public inputs
only, so where bubblewrap cannot run, ``check`` need not refuse: :class:`PortableSubmission`
is the sandbox client (:class:`~autograder.sandbox.client.SandboxedSubmission`) with the same
protocol, per-call timeouts, time budget and failure messages, talking to the sandbox's own
worker loop (:mod:`autograder.check.portable_worker`) over the child's stdin and stdout.
A call that runs out of time kills the child, and the next call starts a new one.

Never used to grade: :func:`autograder.grade.run.run_on_submission` takes the sandbox unless a
caller passes this class, and only ``check`` (:mod:`autograder.check.runner`) does.

The notebook check keeps its child between checks (``keep_worker``): each check loads the
kernel's code again into the same, already started, interpreter.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile

from autograder.check import pipes
from autograder.sandbox import protocol
from autograder.sandbox.client import SandboxedSubmission
from autograder.sandbox.link import PLAIN_REPLY_LIMITS, OutputCapture, _Expired, _Link, _WorkerGone
from autograder.sandbox.isolation import Isolation

#: What results record as the isolation of a portable run.
PORTABLE = "portable"
#: The child's command: this interpreter, isolated from the caller's PYTHONPATH and folder.
WORKER_MODULE = "autograder.check.portable_worker"
PYTHON_FLAGS = ("-I", "-B", "-u")
#: One thread for every numerical library, as in the sandbox.
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


class PortableProcess:
    """A started portable worker: its pipes, its own scratch folder, whether it has greeted yet.

    Has what the sandbox client asks of a worker process (``pid``, ``alive``, ``kill``,
    ``exit_status``, ``close_pipes``).
    """

    def __init__(self) -> None:
        self.scratch = tempfile.mkdtemp(prefix="attn-check-")
        environment = {**os.environ, **{name: "1" for name in THREAD_VARIABLES}}
        self.output: OutputCapture | None = None
        self.greeted = False
        self.pipes = pipes.ChildPipes([sys.executable, *PYTHON_FLAGS, "-m", WORKER_MODULE], cwd=self.scratch,
                                      env=environment, output=self._feed)

    def _feed(self, chunk: bytes) -> None:
        if self.output is not None:
            self.output.feed(chunk)

    @property
    def pid(self) -> int:
        return self.pipes.pid

    def alive(self) -> bool:
        return self.pipes.alive()

    def kill(self) -> None:
        self.pipes.kill()

    def exit_status(self, timeout: float) -> int | None:
        return self.pipes.exit_status(timeout)

    def close_pipes(self) -> None:
        """Close the pipes and remove the scratch folder (once the child is killed)."""
        self.pipes.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


class _PortableLink:
    """What the sandbox client asks of its link to a worker (see :class:`~autograder.sandbox.link._Link`)."""

    def __init__(self, worker: PortableProcess, output: OutputCapture):
        self.worker = worker
        self.output = output
        worker.output = output

    def drain_output(self) -> None:
        """The output is read as it comes; once the child has ended, wait until all of it is read."""
        self.worker.pipes.settle_output()

    def send(self, data: bytes, deadline: float) -> None:
        try:
            self.worker.pipes.send(data, deadline)
        except pipes.Expired:
            raise _Expired from None
        except pipes.Gone:
            raise _WorkerGone from None

    def read_exact(self, size: int, deadline: float) -> bytes:
        try:
            return self.worker.pipes.read_exact(size, deadline)
        except pipes.Expired:
            raise _Expired from None
        except pipes.Gone:
            raise _WorkerGone from None

    def receive(self, deadline: float, limits: protocol.Limits = PLAIN_REPLY_LIMITS) -> protocol.Message:
        return protocol.read_message(lambda size: self.read_exact(size, deadline), limits)

    receive_reply = _Link.receive_reply


#: A started child ready for the next submission (prestarted, or kept by the notebook check).
_ready: list[PortableProcess] = []
#: Whether a spare is started as soon as one is taken (``check --watch``).
_spares = False


def _discard(process: PortableProcess) -> None:
    process.kill()
    process.close_pipes()


def take_process() -> PortableProcess:
    """A live child: the ready one if there is one, else a new one (and a spare, when spares are on)."""
    while _ready:
        process = _ready.pop()
        if process.alive():
            break
        _discard(process)
    else:
        process = PortableProcess()
    if _spares and not _ready:
        _ready.append(PortableProcess())
    return process


def prestart() -> None:
    """Start a child now for the next submission (its interpreter and numpy load meanwhile)."""
    if not _ready:
        _ready.append(PortableProcess())


def keep_spares(enabled: bool = True) -> None:
    """Have a spare child ready after each take (``check --watch``: the next run need not wait)."""
    global _spares
    _spares = enabled


def keep_process(process: PortableProcess) -> None:
    """Keep a live child for the next submission (the notebook check's persistent child)."""
    if process.alive():
        process.output = None
        _ready.append(process)
    else:
        _discard(process)


def discard_processes() -> None:
    """Kill every ready child (at exit)."""
    while _ready:
        _discard(_ready.pop())


atexit.register(discard_processes)


class PortableSubmission(SandboxedSubmission):
    """:class:`~autograder.sandbox.client.SandboxedSubmission` whose worker is a portable child.

    Parameters
    ----------
    module_name, source, limits, filename
        As for :class:`~autograder.sandbox.client.SandboxedSubmission`.
    keep_worker : bool
        When closed, keep a child that is still healthy for the next submission (the
        notebook check) instead of killing it.
    """

    def __init__(self, module_name: str, source: str, limits, filename: str = "<submission>", *, keep_worker: bool = False):
        super().__init__(module_name, source, limits, filename, isolation=Isolation.NONE)
        self.isolation = PORTABLE
        self.keep_worker = keep_worker

    def _start_link(self) -> None:
        """Take a child (started fresh, or ready); wait for its greeting unless it gave it to an earlier submission."""
        process = take_process()
        self._link = _PortableLink(process, self._output)
        if not process.greeted:
            self._await_greeting()
            process.greeted = True

    def close(self) -> None:
        """Kill the child, or keep it for the next submission (``keep_worker``, when it is still alive)."""
        link = self._link
        if self.keep_worker and link is not None and link.worker.alive():
            link.drain_output()
            self._link, self._closed = None, True
            keep_process(link.worker)
            return
        super().close()
