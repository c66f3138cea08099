"""A started worker process: its pipes, how it ended, and how it is killed."""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass

from autograder.config import Defaults
from autograder.errors import GraderError
from autograder.sandbox.host import WORKER_ENV
from autograder.sandbox.isolation import Isolation
from autograder.sandbox.launcher import worker_command

#: bwrap exits with 128 + N when the worker was killed by signal N.
SIGNAL_EXIT_BASE = 128
#: Seconds to wait for a killed worker to be reaped.
REAP_TIMEOUT_S = 5.0

_SIGNAL_HINTS = {
    signal.SIGKILL: "probably the memory or CPU time limit",
    signal.SIGXCPU: "the CPU time limit",
    signal.SIGXFSZ: "the file size limit",
    signal.SIGSEGV: "a segmentation fault",
    signal.SIGBUS: "a bus error",
    signal.SIGABRT: "an abort",
}


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def describe_exit(returncode: int, isolation: Isolation) -> str:
    """Words for how the worker ended, e.g. ``"was killed by SIGKILL (...)"``."""
    number = None
    if returncode < 0:
        number = -returncode
    elif isolation == Isolation.BWRAP and returncode > SIGNAL_EXIT_BASE:
        number = returncode - SIGNAL_EXIT_BASE
    if number is not None:
        hint = _SIGNAL_HINTS.get(number)
        return f"was killed by {_signal_name(number)}" + (f" ({hint})" if hint else "")
    return f"exited with status {returncode}"


def kill_session(popen: subprocess.Popen) -> None:
    """SIGKILL the process group a process leads (it was started in a new session), then reap it."""
    if popen.returncode is None:
        try:
            os.killpg(popen.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    popen.wait(timeout=REAP_TIMEOUT_S)


def close_quietly(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


@dataclass
class WorkerProcess:
    """A started worker and the grader's ends of its three pipes.

    Attributes
    ----------
    popen : subprocess.Popen
        The process the grader started (bwrap, or the interpreter itself).
    request_fd : int
        Write end of the request pipe (non-blocking).
    response_fd : int
        Read end of the response pipe (non-blocking).
    output_fd : int
        Read end of the student's stdout+stderr (non-blocking).
    isolation : Isolation
        The level it runs at.
    """

    popen: subprocess.Popen
    request_fd: int
    response_fd: int
    output_fd: int
    isolation: Isolation

    @classmethod
    def spawn(cls, limits: Defaults, isolation: Isolation) -> "WorkerProcess":
        """Start a worker in a new session.

        Raises
        ------
        GraderError
            When the process cannot be started at all.
        """
        request_read, request_write = os.pipe()
        response_read, response_write = os.pipe()
        try:
            popen = subprocess.Popen(
                worker_command(limits, isolation, request_read, response_write),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                pass_fds=(request_read, response_write),
                env=WORKER_ENV,
                cwd="/",
                start_new_session=True,
            )
        except OSError as error:
            for fd in (request_write, response_read):
                os.close(fd)
            raise GraderError(f"cannot start the sandbox worker: {error}") from None
        finally:
            for fd in (request_read, response_write):
                os.close(fd)
        output_fd = popen.stdout.fileno()
        for fd in (request_write, response_read, output_fd):
            os.set_blocking(fd, False)
        return cls(popen, request_write, response_read, output_fd, isolation)

    @property
    def pid(self) -> int:
        """Host pid of the started process (bwrap's, under bwrap)."""
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def kill(self) -> None:
        """SIGKILL the worker's whole process group (and with it the sandbox), then reap it."""
        kill_session(self.popen)

    def exit_status(self, timeout: float) -> int | None:
        """The exit status once the process ended within ``timeout`` seconds, else None."""
        try:
            return self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def close_pipes(self) -> None:
        """Close the grader's ends of the request and response pipes, and the output pipe."""
        for fd in (self.request_fd, self.response_fd):
            close_quietly(fd)
        self.popen.stdout.close()
