"""The fork server, inside the sandbox: one freshly forked, confined worker per submission.

It serves :class:`~autograder.sandbox.control.ZygoteOp` requests on its control socket
(see :mod:`autograder.sandbox.zygote` for the grader's side) and never runs student code
itself. Standard library only (numpy is imported by the worker module that starts it).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from collections.abc import Callable

if __package__:
    from . import confine, control, sweep
else:  # inside the sandbox, the worker's modules sit side by side
    import confine
    import control
    import sweep

#: Exit status of the server when the grader closes the control socket.
EXIT_OK = 0
#: Exit status of a forked worker whose code failed before it could report one.
EXIT_FAILED = 1
#: Seconds the server waits, after a submission, for the last process of the sandbox uid to be gone.
CLEAR_TIMEOUT_S = 2.0
#: Seconds between two looks at /proc while it waits.
CLEAR_POLL_S = 0.001
#: Seconds between two sweeps while it waits (a process forked during a sweep escapes it).
RESWEEP_S = 0.05


def _become_worker(config: dict, fds: list[int], serve: Callable[[int, int], int]) -> int:
    """In a freshly forked child: take the three pipes, confine itself, serve one submission."""
    in_fd, out_fd, output_fd = fds
    os.setsid()
    for standard in (1, 2):
        os.dup2(output_fd, standard)
    os.close(output_fd)
    confine.confine(config)
    return serve(in_fd, out_fd)


def _fork_worker(config: dict, fds: list[int], control: socket.socket, serve) -> int:
    """Fork a worker for one submission; the server keeps nothing of it but its pid."""
    pid = os.fork()
    if pid == 0:
        status = EXIT_FAILED
        try:
            control.close()
            status = _become_worker(config, fds, serve)
        finally:
            os._exit(status)
    for fd in fds:
        os.close(fd)
    return pid


def sweep_uid(uid: int | None) -> None:
    """Kill every process of the sandbox uid, as that uid.

    The server itself keeps no right to signal other users; a short-lived child that
    becomes the sandbox uid does, and ``kill(-1)`` then reaches every process of that uid
    in the sandbox but itself: the worker, its children, anything it left running (after
    ``setsid()`` too). Each worker had its own mount and IPC namespaces, so its /tmp and its
    IPC objects vanish with its last process.
    """
    if uid is None:
        return
    pid = os.fork()
    if pid == 0:
        try:
            confine.drop_privileges(uid, uid)
            sweep.kill_all_of_this_uid()
        finally:
            os._exit(EXIT_OK)
    os.waitpid(pid, 0)


def clear_uid(uid: int | None, timeout_s: float = CLEAR_TIMEOUT_S) -> int:
    """Wait until the sandbox uid owns no process (each killed and reaped), sweeping again now and then.

    A process the sweep killed still counts against the uid's RLIMIT_NPROC until the
    sandbox's init has reaped it, and one forked while the sweep ran escapes it: without
    this wait, the next submission could start with fewer processes than its limit.

    Returns
    -------
    int
        How many processes of the uid are left at the deadline (0: none).
    """
    if uid is None:
        return 0
    now = time.monotonic()
    deadline, next_sweep = now + timeout_s, now + RESWEEP_S
    while (left := sweep.processes_of(uid)) and (now := time.monotonic()) < deadline:
        if now >= next_sweep:
            sweep_uid(uid)
            next_sweep = now + RESWEEP_S
        time.sleep(CLEAR_POLL_S)
    return left


def _kill_quietly(pid: int) -> None:
    """SIGKILL ``pid`` if this process may still signal it (it has not changed uid, or is gone)."""
    try:
        os.kill(pid, signal.SIGKILL)
    except (PermissionError, ProcessLookupError):
        pass


def _status_of(pid: int, wait: bool) -> int | None:
    """The worker's raw wait status, or None while it runs (``wait=False``)."""
    try:
        reaped, status = os.waitpid(pid, 0 if wait else os.WNOHANG)
    except ChildProcessError:
        return None
    return status if reaped == pid else None


def returncode(status: int | None) -> int | None:
    """``subprocess``'s convention: the exit code, or minus the signal that killed it."""
    if status is None:
        return None
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


class ForkServer:
    """The server's state: its config, its control socket and each live worker's wait status."""

    def __init__(self, config: dict, serve: Callable[[int, int], int]):
        self.config = config
        self.serve = serve
        self.control = socket.socket(fileno=config["control"])
        self.statuses: dict[int, int | None] = {}

    def _status(self, pid: int, wait: bool) -> int | None:
        if self.statuses[pid] is None:
            self.statuses[pid] = _status_of(pid, wait)
        return self.statuses[pid]

    def answer(self, request: dict, fds: list[int]) -> dict:
        """The answer to one request (``fds`` are the pipes a ``fork`` carries)."""
        op, pid = request.get("op"), request.get("pid")
        if op == control.ZygoteOp.FORK and len(fds) == control.ZYGOTE_FDS:
            pid = _fork_worker(self.config, fds, self.control, self.serve)
            self.statuses[pid] = None
            return {"pid": pid}
        for fd in fds:
            os.close(fd)
        if op == control.ZygoteOp.STATUS and pid in self.statuses:
            return {"returncode": returncode(self._status(pid, wait=False))}
        if op == control.ZygoteOp.FINISH and pid in self.statuses:
            _kill_quietly(pid)  # a worker finished before it became the sandbox uid is still the server's to kill
            sweep_uid(self.config.get("uid"))  # the rest, after: a worker the kill could not reach is the uid's
            code = returncode(self._status(pid, wait=True))
            del self.statuses[pid]
            left = clear_uid(self.config.get("uid"))
            return {"returncode": code, "leftovers": left} if left else {"returncode": code}
        return {"error": f"bad request {op!r}"}

    def run(self) -> int:
        """Answer requests until the grader closes the control socket."""
        while True:
            try:
                message, fds, _, _ = socket.recv_fds(self.control, control.ZYGOTE_MESSAGE_BYTES, control.ZYGOTE_FDS)
            except OSError:
                return EXIT_OK
            if not message:
                return EXIT_OK
            try:
                request = json.loads(message)
            except ValueError:
                request = {}
            answer = self.answer(request if isinstance(request, dict) else {}, fds)
            answer["id"] = request.get("id") if isinstance(request, dict) else None
            self.control.send(json.dumps(answer).encode())


def serve_zygote(config: dict, serve: Callable[[int, int], int]) -> int:
    """Run the fork server; ``serve(in_fd, out_fd)`` is what each forked worker runs."""
    return ForkServer(config, serve).run()
