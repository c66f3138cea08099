"""The fork server: a fresh confined worker per submission, and nothing of one reaches the next."""

import os
import time

import numpy as np
import pytest

from autograder.errors import CallTimeout, StudentException, WorkerCrashed
from autograder.sandbox import SandboxedSubmission, host, isolation, spares

from .conftest import TEST_LIMITS

pytestmark = pytest.mark.skipif(
    not (isolation.bwrap_works() and os.geteuid() == 0),
    reason="the fork server runs only under bwrap for a root grader",
)

LEFTOVERS = '''
import ctypes, os, time
IPC_PRIVATE, IPC_CREAT = 0, 0o1000
def plant(tag):
    with open("/tmp/planted-" + tag, "w") as handle:
        handle.write("left by the previous student")
    for mode in (0o500, 0o000):
        locked = "/tmp/locked-%o" % mode
        os.makedirs(locked + "/deep/er")
        open(locked + "/deep/note", "w").close()
        os.chmod(locked + "/deep", mode)
        os.chmod(locked, mode)
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        open("/dev/shm/planted", "w").close()
    libc = ctypes.CDLL(None)
    libc.shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0o600)
    libc.semget(IPC_PRIVATE, 1, IPC_CREAT | 0o600)
    libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600)
    if os.fork() == 0:
        while True:
            time.sleep(0.05)
    return 1
def _rows(kind):
    with open("/proc/sysvipc/" + kind) as listing:
        return len(listing.read().splitlines()) - 1
def look():
    shm = len(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else 0
    processes = [p for p in os.listdir("/proc") if p.isdigit()]
    return len(os.listdir("/tmp")), shm, _rows("shm") + _rows("sem") + _rows("msg"), len(processes)
def planted_ipc():
    return _rows("shm") + _rows("sem") + _rows("msg")
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
    assert uid == host.sandbox_id() and uid != 0
    assert parent != 1, "a forked worker's parent is the fork server, not the sandbox's init"
    assert spares._zygotes, "the worker should have come from a fork server"


def test_nothing_of_one_student_reaches_the_next(forked):
    first = forked(LEFTOVERS)
    assert first.call("plant", "a") == 1
    assert int(first.call("planted_ipc")) == 3, "the planting itself must work for this test to mean anything"
    first.close()
    second = forked(LEFTOVERS)
    files, shm_files, ipc_objects, processes = (int(v) for v in second.call("look"))
    assert files == 0, "the previous student's /tmp files were not swept"
    assert shm_files == 0, "the previous student's /dev/shm files were not swept"
    assert ipc_objects == 0, "the previous student's System V IPC objects survived"
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
