"""A fork server for batches: one bwrap sandbox per grading process, one forked worker per submission.

Starting a sandboxed interpreter and importing numpy costs more than grading a small
submission. The fork server pays it once: it starts under bwrap like any worker, imports
numpy, and then forks a fresh worker for each submission. Each forked worker confines
itself exactly like a started one (rlimits, the unprivileged sandbox uid, no capabilities)
before it reads any student code. When a submission is finished, the server sweeps the
sandbox uid clean: every process of that uid is killed, the writable places (the private
/tmp and /dev/shm) are emptied however their folders were locked, and the System V IPC
objects are removed, so nothing of one student reaches the next. The server never runs student
code itself, and a worker cannot signal or trace it (another uid, no capabilities).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time

from autograder.config import Defaults
from autograder.errors import GraderError
from autograder.sandbox.cgroups import SubmissionCgroups, entering, submission_cgroups
from autograder.sandbox.host import WORKER_ENV
from autograder.sandbox.isolation import Isolation
from autograder.sandbox.launcher import zygote_command
from autograder.sandbox.process import close_quietly, kill_session, reaped, started
from autograder.sandbox.protocol import ZygoteOp

#: Seconds the grader waits for the server's answer to one request.
ZYGOTE_ANSWER_TIMEOUT_S = 20.0
#: Largest answer the server sends.
ZYGOTE_ANSWER_BYTES = 4096
#: Seconds between two questions about a worker's exit.
STATUS_POLL_S = 0.01


class Zygote:
    """The fork server process and the grader's end of its control socket."""

    def __init__(self, limits: Defaults):
        cgroups = submission_cgroups()
        self.cgroup = cgroups.create(limits.memory_mb, limits.max_processes) if cgroups is not None else None
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        command = zygote_command(limits, theirs.fileno())
        try:
            self.popen = subprocess.Popen(
                command if self.cgroup is None else entering(self.cgroup, command),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),), env=WORKER_ENV, cwd="/", start_new_session=True,
            )
        except OSError as error:
            ours.close()
            raise GraderError(f"cannot start the sandbox fork server: {error}") from None
        finally:
            theirs.close()
        started(self.popen.pid)
        self.control = ours
        self.control.settimeout(ZYGOTE_ANSWER_TIMEOUT_S)

    def alive(self) -> bool:
        return self.popen.poll() is None

    def ask(self, request: dict, fds: tuple[int, ...] = ()) -> dict:
        """Send one request (with fds) and return the answer.

        Raises
        ------
        GraderError
            When the server is gone or does not answer.
        """
        try:
            socket.send_fds(self.control, [json.dumps(request).encode()], list(fds))
            answer = self.control.recv(ZYGOTE_ANSWER_BYTES)
        except OSError as error:
            raise GraderError(f"the sandbox fork server stopped answering: {error}") from None
        if not answer:
            raise GraderError("the sandbox fork server closed its socket")
        return json.loads(answer)

    def fork_worker(self) -> "ForkedWorker":
        """A fresh confined worker, ready for one submission.

        Raises
        ------
        GraderError
            When the server cannot fork one.
        """
        request_read, request_write = os.pipe()
        response_read, response_write = os.pipe()
        output_read, output_write = os.pipe()
        try:
            answer = self.ask({"op": ZygoteOp.FORK}, (request_read, response_write, output_write))
        except GraderError:
            for fd in (request_write, response_read, output_read):
                os.close(fd)
            raise
        finally:
            for fd in (request_read, response_write, output_write):
                os.close(fd)
        if "pid" not in answer:
            raise GraderError(f"the sandbox fork server could not fork: {answer}")
        for fd in (request_write, response_read, output_read):
            os.set_blocking(fd, False)
        return ForkedWorker(self, answer["pid"], request_write, response_read, output_read)

    def close(self) -> None:
        """Kill the whole sandbox and reap it."""
        kill_session(self.popen)
        reaped(self.popen.pid)
        if self.cgroup is not None:
            SubmissionCgroups.remove(self.cgroup)
        self.control.close()


class ForkedWorker:
    """A worker forked by a :class:`Zygote`; it offers what the client uses of a started one."""

    isolation = Isolation.BWRAP

    def __init__(self, zygote: Zygote, pid: int, request_fd: int, response_fd: int, output_fd: int):
        self.zygote = zygote
        self.pid = pid  # in the sandbox's PID namespace
        self.request_fd = request_fd
        self.response_fd = response_fd
        self.output_fd = output_fd
        self.returncode: int | None = None
        self.finished = False

    def alive(self) -> bool:
        if self.returncode is None and not self.finished and self.zygote.alive():
            self.returncode = self.zygote.ask({"op": ZygoteOp.STATUS, "pid": self.pid}).get("returncode")
        return self.returncode is None and not self.finished and self.zygote.alive()

    def exit_status(self, timeout: float) -> int | None:
        """The worker's return code (minus the signal that killed it) once it ended, else None."""
        deadline = time.monotonic() + timeout
        while self.alive() and time.monotonic() < deadline:
            time.sleep(STATUS_POLL_S)
        return self.returncode

    def kill(self) -> None:
        """End the worker and everything it started, and empty the sandbox's /tmp of its files."""
        if self.zygote.alive() and not self.finished:
            returncode = self.zygote.ask({"op": ZygoteOp.FINISH, "pid": self.pid}).get("returncode")
            self.returncode = returncode if self.returncode is None else self.returncode
        self.finished = True

    def close_pipes(self) -> None:
        for fd in (self.request_fd, self.response_fd, self.output_fd):
            close_quietly(fd)
