"""The fork server's answers: each repeats its request's id; a request it does not know is refused."""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time

import pytest

from autograder.sandbox import control as control_messages
from autograder.sandbox import forkserver

#: Seconds the server may take to answer FINISH (it answers at once when it can kill the worker).
FINISH_DEADLINE_S = 5


@pytest.fixture
def server():
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    serving = threading.Thread(target=forkserver.serve_zygote, args=({"control": theirs.detach()}, None), daemon=True)
    serving.start()
    yield ours
    ours.close()
    serving.join(timeout=5)


def _ask(control: socket.socket, request) -> dict:
    control.send(json.dumps(request).encode() if not isinstance(request, bytes) else request)
    return json.loads(control.recv(control_messages.ZYGOTE_MESSAGE_BYTES))


def test_answers_repeat_the_request_id_and_unknown_requests_are_refused(server):
    assert _ask(server, {"id": 7, "op": control_messages.ZygoteOp.STATUS, "pid": 12345}) == {"error": "bad request 'status'", "id": 7}
    assert _ask(server, {"id": 8, "op": "format the disk"})["id"] == 8
    assert _ask(server, {"id": 9, "op": control_messages.ZygoteOp.FORK}) == {"error": "bad request 'fork'", "id": 9}  # no pipes


def test_a_request_that_is_not_json_is_refused_not_fatal(server):
    assert "error" in _ask(server, b"\xff not json")
    assert _ask(server, {"id": 1, "op": control_messages.ZygoteOp.FINISH, "pid": 1})["id"] == 1


def _never_serves(in_fd: int, out_fd: int) -> int:
    time.sleep(20)  # longer than FINISH_DEADLINE_S, as a worker that has not yet dropped to the sandbox uid: the uid sweep cannot reach it
    return 0


def test_a_worker_finished_before_it_leaves_the_servers_uid_is_killed_and_the_answer_comes_at_once():
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    serving = threading.Thread(target=forkserver.serve_zygote, args=({"control": theirs.detach()}, _never_serves), daemon=True)
    serving.start()
    pipes = [os.pipe() for _ in range(control_messages.ZYGOTE_FDS)]
    try:
        socket.send_fds(ours, [json.dumps({"id": 1, "op": control_messages.ZygoteOp.FORK}).encode()],
                        [pipe[index % 2] for index, pipe in enumerate(pipes)])
        forked = json.loads(ours.recv(control_messages.ZYGOTE_MESSAGE_BYTES))
        ours.settimeout(FINISH_DEADLINE_S)
        finished = _ask(ours, {"id": 2, "op": control_messages.ZygoteOp.FINISH, "pid": forked["pid"]})
        assert finished == {"returncode": -signal.SIGKILL, "id": 2}
    finally:
        ours.close()
        serving.join(timeout=5)
        for fd in (fd for pipe in pipes for fd in pipe):
            try:
                os.close(fd)
            except OSError:
                pass  # sent to the server, which closed its copy; ours may be closed already


class _Processes:
    """A stand-in for ``sweep.processes_of``: the uid keeps ``left`` processes until ``sweeps_needed`` sweeps."""

    def __init__(self, left: int, sweeps_needed: int):
        self.left = left
        self.sweeps_needed = sweeps_needed
        self.sweeps = 0

    def count(self, uid: int) -> int:
        return self.left if self.sweeps < self.sweeps_needed else 0

    def sweep(self, uid: int) -> None:
        self.sweeps += 1


@pytest.fixture
def uid_processes(monkeypatch):
    def install(left: int, sweeps_needed: int) -> _Processes:
        processes = _Processes(left, sweeps_needed)
        monkeypatch.setattr(forkserver.sweep, "processes_of", processes.count)
        monkeypatch.setattr(forkserver, "sweep_uid", processes.sweep)
        monkeypatch.setattr(forkserver, "RESWEEP_S", 0.01)
        return processes

    return install


def test_clearing_a_uid_waits_for_its_last_process_sweeping_again_meanwhile(uid_processes):
    processes = uid_processes(left=2, sweeps_needed=3)  # a process forked during each of two sweeps escaped it
    assert forkserver.clear_uid(60001, timeout_s=FINISH_DEADLINE_S) == 0
    assert processes.sweeps == 3


def test_a_uid_still_busy_at_the_deadline_is_reported_with_its_count(uid_processes):
    processes = uid_processes(left=2, sweeps_needed=10**9)
    started = time.monotonic()
    assert forkserver.clear_uid(60001, timeout_s=0.1) == 2
    assert time.monotonic() - started < FINISH_DEADLINE_S
    assert processes.sweeps >= 2


def test_a_clear_uid_is_not_swept_again(uid_processes):
    processes = uid_processes(left=0, sweeps_needed=0)
    assert forkserver.clear_uid(60001) == 0
    assert processes.sweeps == 0
