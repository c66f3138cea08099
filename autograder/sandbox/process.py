"""A started worker process: its pipes, how it ended, and how it is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.errors import GraderError
from autograder.i18n import Message, N_, msg
from autograder.sandbox.cgroups import SubmissionCgroups, entering, submission_cgroups
from autograder.sandbox.host import PYTHON_FLAGS, WORKER_ENV, private_dir, python_executable
from autograder.sandbox.isolation import Isolation
from autograder.sandbox.launcher import worker_command, worker_uid
from autograder.sandbox.sweep import remove_tree

if TYPE_CHECKING:
    from autograder.config import Defaults

#: bwrap exits with 128 + N when the worker was killed by signal N.
SIGNAL_EXIT_BASE = 128
#: Seconds to wait for a killed worker to be reaped.
REAP_TIMEOUT_S = 5.0
#: ``prctl`` option that makes orphaned descendants children of this process instead of init's.
PR_SET_CHILD_SUBREAPER = 36
#: Rounds of killing adopted orphans (each round may orphan the next generation).
MAX_ORPHAN_ROUNDS = 16
#: Fields of /proc/<pid>/stat after the command name: the parent's pid, the session id.
STAT_PPID_FIELD = 1
STAT_SESSION_FIELD = 3

#: Pids of the sandbox processes (workers, fork servers) this grader started in sessions of
#: their own and has not reaped: any other child in another session was left by a worker.
_started: set[int] = set()

_SIGNAL_HINTS = {  # by name: Windows has only some of these signals (and this module is imported there too)
    getattr(signal, name): hint for name, hint in (
        ("SIGKILL", N_("probably the memory or CPU time limit")),
        ("SIGXCPU", N_("the CPU time limit")),
        ("SIGXFSZ", N_("the file size limit")),
        ("SIGSEGV", N_("a segmentation fault")),
        ("SIGBUS", N_("a bus error")),
        ("SIGABRT", N_("an abort")),
    ) if hasattr(signal, name)
}


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def describe_exit(returncode: int, isolation: Isolation) -> Message:
    """Words for how the worker ended, e.g. ``"was killed by SIGKILL (...)"``."""
    number = None
    if returncode < 0:
        number = -returncode
    elif isolation == Isolation.BWRAP and returncode > SIGNAL_EXIT_BASE:
        number = returncode - SIGNAL_EXIT_BASE
    if number is not None:
        hint = _SIGNAL_HINTS.get(number)
        if hint:
            return msg("was killed by {signal} ({hint})", signal=_signal_name(number), hint=Message(hint))
        return msg("was killed by {signal}", signal=_signal_name(number))
    return msg("exited with status {status}", status=str(returncode))


def kill_session(popen: subprocess.Popen) -> None:
    """SIGKILL the process group a process leads (it was started in a new session), then reap it."""
    if popen.returncode is None:
        try:
            os.killpg(popen.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    popen.wait(timeout=REAP_TIMEOUT_S)


def kill_processes_of(uid: int) -> None:
    """SIGKILL every process of ``uid`` (a short-lived child becomes ``uid`` and calls ``kill(-1)``)."""
    script = f"import os; os.setgroups([]); os.setgid({uid}); os.setuid({uid}); os.kill(-1, 9)"
    subprocess.run([python_executable(), *PYTHON_FLAGS, "-c", script], env=WORKER_ENV, capture_output=True,
                   timeout=REAP_TIMEOUT_S, check=False)


def adopt_orphans() -> None:
    """Become the subreaper of this grader's descendants: what a worker leaves running (after
    ``setsid()``, say) becomes the grader's child when the worker dies, and :func:`kill_orphans` ends it."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _orphans() -> list[int]:
    """Children of this grader in another session that it did not start: what workers left behind.

    Workers start in sessions of their own, so whatever they leave is never in the grader's
    session; children the rest of the grader starts (in its session) are never touched.
    """
    me, my_session = str(os.getpid()), os.getsid(0)
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) in _started:
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[STAT_PPID_FIELD].decode() == me and int(fields[STAT_SESSION_FIELD]) != my_session:
            found.append(int(entry.name))
    return found


def kill_orphans() -> None:
    """SIGKILL and reap every orphan this grader adopted (see :func:`_orphans`)."""
    for _ in range(MAX_ORPHAN_ROUNDS):
        orphans = _orphans()
        if not orphans:
            return
        for pid in orphans:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                continue


def started(pid: int) -> None:
    """Record a sandbox process this grader started in a session of its own (not an orphan)."""
    _started.add(pid)


def reaped(pid: int) -> None:
    """Forget a sandbox process once it is reaped."""
    _started.discard(pid)


def _private_tmp(uid: int | None) -> str:
    """A fresh private folder for a worker without bwrap, owned by the uid it runs as."""
    folder = tempfile.mkdtemp(prefix="tmp-", dir=private_dir())
    if uid is not None:
        os.chown(folder, uid, uid)
    return folder


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
    uid : int or None
        The uid it dropped to (None: the grader's).
    tmp_dir : str or None
        Without bwrap, its private folder (removed with it).
    cgroup : Path or None
        Its cgroup, when the grader was handed a cgroup v2 subtree (removed with it).
    """

    popen: subprocess.Popen
    request_fd: int
    response_fd: int
    output_fd: int
    isolation: Isolation
    uid: int | None = None
    tmp_dir: str | None = None
    cgroup: Path | None = None

    @classmethod
    def spawn(cls, limits: Defaults, isolation: Isolation) -> "WorkerProcess":
        """Start a worker in a new session.

        Raises
        ------
        GraderError
            When the process cannot be started at all.
        """
        uid = worker_uid(isolation)
        tmp_dir = None
        if isolation == Isolation.NONE:
            adopt_orphans()
            tmp_dir = _private_tmp(uid)
        environment = WORKER_ENV if tmp_dir is None else {**WORKER_ENV, "HOME": tmp_dir, "TMPDIR": tmp_dir}
        cgroups = submission_cgroups()
        cgroup = cgroups.create(limits.memory_mb, limits.max_processes) if cgroups is not None else None
        request_read, request_write = os.pipe()
        response_read, response_write = os.pipe()
        command = worker_command(limits, isolation, request_read, response_write, tmp_dir)
        try:
            popen = subprocess.Popen(
                command if cgroup is None else entering(cgroup, command),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                pass_fds=(request_read, response_write),
                env=environment,
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
        started(popen.pid)
        output_fd = popen.stdout.fileno()
        for fd in (request_write, response_read, output_fd):
            os.set_blocking(fd, False)
        return cls(popen, request_write, response_read, output_fd, isolation, uid, tmp_dir, cgroup)

    @property
    def pid(self) -> int:
        """Host pid of the started process (bwrap's, under bwrap)."""
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def kill(self) -> None:
        """SIGKILL the worker's whole process group (and with it the sandbox), then reap it.

        Without bwrap, what it left running is killed too (every process of its uid when it
        has one of its own, and every orphan the grader adopted), and its private folder is removed.
        """
        kill_session(self.popen)
        reaped(self.popen.pid)
        if self.cgroup is not None:
            SubmissionCgroups.remove(self.cgroup)
            self.cgroup = None
        if self.isolation != Isolation.NONE:
            return
        if self.uid is not None:
            kill_processes_of(self.uid)
        kill_orphans()
        if self.tmp_dir is not None:
            remove_tree(self.tmp_dir)
            self.tmp_dir = None

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
