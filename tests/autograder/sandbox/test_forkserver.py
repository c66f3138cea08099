"""The fork server's answers: each repeats its request's id; a request it does not know is refused."""

from __future__ import annotations

import json
import socket
import threading

import pytest

from autograder.sandbox import control as control_messages
from autograder.sandbox import forkserver


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
