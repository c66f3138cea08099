"""The grader's side of the fork server: one bwrap sandbox per grading process, one forked worker per submission.

Starting a sandboxed interpreter and importing numpy costs more than grading a small
submission. The fork server (:mod:`.forkserver`) pays it once: it starts under bwrap like
any worker, imports numpy, and then forks a fresh worker for each submission. Each forked
worker confines itself exactly like a started one before it reads any student code, with
a mount and an IPC namespace of its own: its /tmp and its IPC objects vanish with it. When
a submission is finished, the server kills every process of the sandbox uid and waits until
the last is reaped (a killed process still counts against the uid's process limit), so
nothing of one student reaches the next; processes that outlive that wait get the whole
sandbox replaced. The server never runs student code itself, and a worker
cannot signal or trace it (another uid, no capabilities).

The end of a submission does not wait: the grader posts the clean-up and a request for the
next worker, and reads both answers before its next request. The server answers in order,
so the next worker is forked only after the clean-up, and it confines itself while the
grader records the result and reads the next submission.

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
from collections import deque
from collections.abc import Callable

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
        self._unanswered: deque[tuple[int, Callable[[dict], None]]] = deque()  # posted, answers not read yet
        self._next: _PendingFork | None = None  # the next submission's worker, asked for ahead of need

    def alive(self) -> bool:
        return not self._closed and self.popen.poll() is None

    def gone(self, reason: str) -> ZygoteGone:
        """Kill the server with its whole sandbox; the error to raise, saying why."""
        self.close()
        return ZygoteGone(f"the sandbox fork server {reason}; it was replaced")

    def _send(self, op: ZygoteOp, fds: tuple[int, ...], fields: dict) -> int:
        self._last_id += 1
        request = {"id": self._last_id, "op": op, **fields}
        try:
            self.control.settimeout(ZYGOTE_ANSWER_TIMEOUT_S)
            socket.send_fds(self.control, [json.dumps(request).encode()], list(fds))
        except OSError as error:
            raise self.gone(f"stopped answering ({error})") from None
        return self._last_id

    def _receive(self, request_id: int) -> dict:
        try:
            raw = self.control.recv(ZYGOTE_MESSAGE_BYTES)
            answer = json.loads(raw) if raw else None
        except (OSError, ValueError) as error:
            raise self.gone(f"stopped answering ({error})") from None
        if not isinstance(answer, dict) or answer.get("id") != request_id:
            raise self.gone("closed its socket or answered out of turn")
        return answer

    def _settle(self) -> None:
        """Read the answers of every posted request, in order."""
        while self._unanswered:
            request_id, on_answer = self._unanswered.popleft()
            on_answer(self._receive(request_id))

    def post(self, op: ZygoteOp, fds: tuple[int, ...] = (), on_answer: Callable[[dict], None] = lambda answer: None,
             **fields) -> None:
        """Send one request now and read its answer before the next :meth:`ask`: the server works meanwhile.

        The server answers requests in the order they come, so whatever is asked after a
        ``finish`` is done after it.

        Raises
        ------
        ZygoteGone
            As :meth:`ask`.
        """
        request_id = self._send(op, fds, fields)
        self._unanswered.append((request_id, on_answer))

    def ask(self, op: ZygoteOp, fds: tuple[int, ...] = (), **fields) -> dict:
        """Send one request (with fds) and return its answer (after those of the posted ones).

        Raises
        ------
        ZygoteGone
            When the server is gone, silent past :data:`ZYGOTE_ANSWER_TIMEOUT_S` or out of
            turn; it is killed first, with everything in its sandbox.
        """
        self._settle()
        return self._receive(self._send(op, fds, fields))

    def _post_fork(self) -> "_PendingFork":
        pending = _PendingFork()
        try:
            self.post(ZygoteOp.FORK, pending.server_ends, pending.answered)
        except GraderError:
            pending.close()
            raise
        finally:
            pending.hand_over()
        return pending

    def fork_ahead(self) -> None:
        """Ask for the next submission's worker now: it is forked, and confines itself, while the grader works.

        Raises
        ------
        ZygoteGone
            As :meth:`ask`.
        """
        if self._next is None and self.alive():
            self._next = self._post_fork()

    def fork_worker(self) -> "ForkedWorker":
        """A fresh confined worker, ready for one submission (the one forked ahead, if there is one).

        Raises
        ------
        ZygoteGone
            When the server does not answer (it was killed).
        GraderError
            When the server answers but cannot fork.
        """
        pending, self._next = self._next or self._post_fork(), None
        try:
            self._settle()
            return pending.worker(self)
        except GraderError:
            pending.close()
            raise

    def close(self) -> None:
        """Kill the whole sandbox and reap it (idempotent)."""
        if self._closed:
            return
        self._closed = True
        if self._next is not None:
            self._next.close()
            self._next = None
        self._unanswered.clear()
        kill_session(self.popen)
        reaped(self.popen.pid)
        if self.cgroup is not None:
            SubmissionCgroups.remove(self.cgroup)
        self.control.close()


class _PendingFork:
    """The pipes of a worker the server was asked to fork, until its answer is read."""

    def __init__(self) -> None:
        self.request_read, self.request_write = os.pipe()
        self.response_read, self.response_write = os.pipe()
        self.output_read, self.output_write = os.pipe()
        self.answer: dict | None = None
        self._closed = False

    @property
    def server_ends(self) -> tuple[int, int, int]:
        """The worker's ends, sent to the server with the request."""
        return self.request_read, self.response_write, self.output_write

    @property
    def grader_ends(self) -> tuple[int, int, int]:
        return self.request_write, self.response_read, self.output_read

    def hand_over(self) -> None:
        """Close the worker's ends here once sent: the server holds its own copies."""
        for fd in self.server_ends:
            close_quietly(fd)

    def answered(self, answer: dict) -> None:
        self.answer = answer

    def close(self) -> None:
        """Close the grader's ends (once: a number closed twice may be another file's by then)."""
        if not self._closed:
            self._closed = True
            for fd in self.grader_ends:
                close_quietly(fd)

    def worker(self, zygote: Zygote) -> "ForkedWorker":
        """The forked worker, once the server answered.

        Raises
        ------
        GraderError
            When the server could not fork.
        """
        if not self.answer or "pid" not in self.answer:
            raise GraderError(f"the sandbox fork server could not fork: {self.answer}")
        for fd in self.grader_ends:
            os.set_blocking(fd, False)
        return ForkedWorker(zygote, self.answer["pid"], *self.grader_ends)


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

    def _finished_with(self, answer: dict) -> None:
        """Take the worker's return code from the server's ``finish`` answer.

        Raises
        ------
        ZygoteGone
            When processes of the sandbox uid outlived the clean-up: they would count
            against the next submission's process limit, so the whole sandbox is replaced.
        """
        if self.returncode is None:
            self.returncode = answer.get("returncode")
        if answer.get("leftovers"):
            raise self.zygote.gone(f"could not end {answer['leftovers']} process(es) of a finished submission")

    def kill(self) -> None:
        """End the worker and everything it started, and have the next worker forked after that.

        The server kills every process of the sandbox uid; the grader reads its answer only
        before its next request, so the clean-up overlaps the grader's own work, and so does
        the fork of the next worker, which the server makes after the clean-up.
        """
        if self.zygote.alive() and not self.finished:
            try:
                self.zygote.post(ZygoteOp.FINISH, on_answer=self._finished_with, pid=self.pid)
                self.zygote.fork_ahead()
            except ZygoteGone:
                pass
        self.finished = True

    def close_pipes(self) -> None:
        for fd in (self.request_fd, self.response_fd, self.output_fd):
            close_quietly(fd)
