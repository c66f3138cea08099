"""The grader's side of the fork server: one bwrap sandbox per grading process, one forked worker per submission.

Starting a sandboxed interpreter and importing numpy costs more than grading a small
submission. The fork server (:mod:`.forkserver`) pays it once: it starts under bwrap like
any worker, imports numpy, and then forks a fresh worker for each submission. Each forked
worker confines itself exactly like a started one before it reads any student code, with
a mount and an IPC namespace of its own: its /tmp and its IPC objects vanish with it. When
a submission is finished, the server kills every process of the sandbox uid, so nothing of
one student reaches the next. The server never runs student code itself, and a worker
cannot signal or trace it (another uid, no capabilities).

Every request carries an id that its answer repeats. A server that does not answer in time,
answers out of turn or closes its socket is killed with its whole sandbox
(:class:`ZygoteGone`); the next worker comes from a fresh one, so one submission's trouble
never becomes another's grader error.
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
from autograder.sandbox.control import ZYGOTE_MESSAGE_BYTES, ZygoteOp

#: Seconds the grader waits for the server's answer to one request before it replaces the server.
ZYGOTE_ANSWER_TIMEOUT_S = 10.0
#: Seconds between two questions about a worker's exit.
STATUS_POLL_S = 0.01


class ZygoteGone(GraderError):
    """The fork server stopped answering, answered out of turn, or closed its socket; it was killed."""


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
        self._last_id = 0
        self._closed = False

    def alive(self) -> bool:
        return not self._closed and self.popen.poll() is None

    def ask(self, op: ZygoteOp, fds: tuple[int, ...] = (), **fields) -> dict:
        """Send one request (with fds) and return its answer.

        Raises
        ------
        ZygoteGone
            When the server is gone, silent past :data:`ZYGOTE_ANSWER_TIMEOUT_S` or out of
            turn; it is killed first, with everything in its sandbox.
        """
        self._last_id += 1
        request = {"id": self._last_id, "op": op, **fields}
        try:
            self.control.settimeout(ZYGOTE_ANSWER_TIMEOUT_S)
            socket.send_fds(self.control, [json.dumps(request).encode()], list(fds))
            raw = self.control.recv(ZYGOTE_MESSAGE_BYTES)
            answer = json.loads(raw) if raw else None
        except (OSError, ValueError) as error:
            self.close()
            raise ZygoteGone(f"the sandbox fork server stopped answering ({error}); it was replaced") from None
        if not isinstance(answer, dict) or answer.get("id") != request["id"]:
            self.close()
            raise ZygoteGone("the sandbox fork server closed its socket or answered out of turn; it was replaced")
        return answer

    def fork_worker(self) -> "ForkedWorker":
        """A fresh confined worker, ready for one submission.

        Raises
        ------
        ZygoteGone
            When the server does not answer (it was killed).
        GraderError
            When the server answers but cannot fork.
        """
        request_read, request_write = os.pipe()
        response_read, response_write = os.pipe()
        output_read, output_write = os.pipe()
        try:
            answer = self.ask(ZygoteOp.FORK, (request_read, response_write, output_write))
        except GraderError:
            for fd in (request_write, response_read, output_read):
                os.close(fd)
            raise
        finally:
            for fd in (request_read, response_write, output_write):
                os.close(fd)
        if "pid" not in answer:
            for fd in (request_write, response_read, output_read):
                os.close(fd)
            raise GraderError(f"the sandbox fork server could not fork: {answer}")
        for fd in (request_write, response_read, output_read):
            os.set_blocking(fd, False)
        return ForkedWorker(self, answer["pid"], request_write, response_read, output_read)

    def close(self) -> None:
        """Kill the whole sandbox and reap it (idempotent)."""
        if self._closed:
            return
        self._closed = True
        kill_session(self.popen)
        reaped(self.popen.pid)
        if self.cgroup is not None:
            SubmissionCgroups.remove(self.cgroup)
        self.control.close()


class ForkedWorker:
    """A worker forked by a :class:`Zygote`; it offers what the client uses of a started one.

    When its server is gone, the worker is gone too (it lived in the server's sandbox): it
    reads as ended, with no known return code, and never raises.
    """

    isolation = Isolation.BWRAP

    def __init__(self, zygote: Zygote, pid: int, request_fd: int, response_fd: int, output_fd: int):
        self.zygote = zygote
        self.pid = pid  # in the sandbox's PID namespace
        self.request_fd = request_fd
        self.response_fd = response_fd
        self.output_fd = output_fd
        self.returncode: int | None = None
        self.finished = False

    def _ask(self, op: ZygoteOp) -> int | None:
        """The server's answer about this worker (its return code), or None once the server is gone."""
        try:
            return self.zygote.ask(op, pid=self.pid).get("returncode")
        except ZygoteGone:
            self.finished = True
            return None

    def alive(self) -> bool:
        if self.returncode is None and not self.finished and self.zygote.alive():
            self.returncode = self._ask(ZygoteOp.STATUS)
        return self.returncode is None and not self.finished and self.zygote.alive()

    def exit_status(self, timeout: float) -> int | None:
        """The worker's return code (minus the signal that killed it) once it ended, else None."""
        deadline = time.monotonic() + timeout
        while self.alive() and time.monotonic() < deadline:
            time.sleep(STATUS_POLL_S)
        return self.returncode

    def kill(self) -> None:
        """End the worker and everything it started (the server kills every process of the sandbox uid)."""
        if self.zygote.alive() and not self.finished:
            returncode = self._ask(ZygoteOp.FINISH)
            self.returncode = returncode if self.returncode is None else self.returncode
        self.finished = True

    def close_pipes(self) -> None:
        for fd in (self.request_fd, self.response_fd, self.output_fd):
            close_quietly(fd)
