"""The fork server: a fresh confined worker per submission, and nothing of one reaches the next."""

import os
import time

import numpy as np
import pytest

from autograder.errors import CallTimeout, StudentException, WorkerCrashed
from autograder.sandbox import SandboxedSubmission, launcher, spares

from .conftest import TEST_LIMITS

pytestmark = pytest.mark.skipif(
    not (launcher.bwrap_works() and os.geteuid() == 0),
    reason="the fork server runs only under bwrap for a root grader",
)

LEFTOVERS = '''
import os, subprocess, time
def plant(tag):
    with open("/tmp/planted-" + tag, "w") as handle:
        handle.write("left by the previous student")
    if os.fork() == 0:
        while True:
            time.sleep(0.05)
    return 1
def look():
    names = os.listdir("/tmp")
    processes = [p for p in os.listdir("/proc") if p.isdigit()]
    return len(names), len(processes)
'''


@pytest.fixture
def forked():
    spares.keep_spares(True)
    made = []

    def start(source, limits=TEST_LIMITS):
        sub = SandboxedSubmission("student", source, limits, filename="student.py")
        made.append(sub)
        sub.start()
        return sub

    yield start
    for sub in made:
        sub.close()
    spares.keep_spares(False)


def test_workers_come_from_the_fork_server_and_run_unprivileged(forked):
    sub = forked("import os\ndef who():\n    return os.getuid(), os.getppid()\n")
    uid, parent = (int(v) for v in sub.call("who"))
    assert uid == launcher.sandbox_id() and uid != 0
    assert parent != 1, "a forked worker's parent is the fork server, not the sandbox's init"
    assert spares._zygotes, "the worker should have come from a fork server"


def test_nothing_of_one_student_reaches_the_next(forked):
    first = forked(LEFTOVERS)
    assert first.call("plant", "a") == 1
    first.close()
    second = forked(LEFTOVERS)
    files, processes = (int(v) for v in second.call("look"))
    assert files == 0, "the previous student's /tmp files were not swept"
    assert processes <= 3, "the previous student's background process survived"  # init, the server, this worker


def test_a_hang_costs_only_its_call_and_the_next_call_gets_a_fresh_worker(forked):
    sub = forked("def spin():\n    while True:\n        pass\n\ndef ok():\n    return 7\n")
    started = time.monotonic()
    with pytest.raises(CallTimeout):
        sub.call("spin")
    assert time.monotonic() - started < TEST_LIMITS.call_timeout_s + 2
    assert int(sub.call("ok")) == 7


def test_exits_and_bombs_are_contained(forked):
    source = (
        "import os\n"
        "def leave():\n    os._exit(3)\n"
        "def bomb():\n    while True:\n        try:\n            os.fork()\n        except OSError:\n            pass\n"
        "def hog():\n    blocks = []\n    while True:\n        blocks.append(bytearray(64 * 1024 * 1024))\n"
        "def ok():\n    return 1\n"
    )
    sub = forked(source)
    with pytest.raises(WorkerCrashed, match="status 3"):
        sub.call("leave")
    with pytest.raises((CallTimeout, StudentException, WorkerCrashed)):
        sub.call("bomb")
    with pytest.raises((StudentException, WorkerCrashed, CallTimeout)):  # MemoryError, or slow zeroing under load
        sub.call("hog")
    assert int(sub.call("ok")) == 1
    assert np.asarray(forked("def ok():\n    return 2\n").call("ok")) == 2


def test_a_dead_fork_server_is_replaced(forked):
    forked("def ok():\n    return 1\n").close()
    (zygote,) = spares._zygotes.values()
    zygote.close()
    assert int(forked("def ok():\n    return 5\n").call("ok")) == 5
