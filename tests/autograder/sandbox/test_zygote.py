"""The fork server: a fresh confined worker per submission, and nothing of one reaches the next."""

import os
import signal
import time

import numpy as np
import pytest

from autograder.errors import CallTimeout, StudentException, WorkerCrashed
from autograder.sandbox import SandboxedSubmission, host, isolation, spares, zygote

from tests.autograder.support import descendants, parent_pids

from .conftest import TEST_LIMITS

pytestmark = pytest.mark.skipif(
    not (isolation.bwrap_works() and os.geteuid() == 0),
    reason="the fork server runs only under bwrap for a root grader",
)

#: A generous bound on starting a fresh fork server and forking from it (the measured figure is far lower).
PROMPT_REPLACEMENT_S = 5.0

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
def _librt():
    for name in (None, "librt.so.1"):
        library = ctypes.CDLL(name, use_errno=True)
        if hasattr(library, "mq_open"):
            return library
O_RDONLY, O_RDWR, O_CREAT = 0, 2, 0o100
def plant_more():
    queue = _librt().mq_open(b"/planted", O_CREAT | O_RDWR, 0o600, None)
    os.chdir("/tmp")
    for _ in range(30):  # 30 x 201 characters: deeper than PATH_MAX (4096)
        os.mkdir("d" * 200)
        os.chdir("d" * 200)
    open("note", "w").close()
    os.chdir("/tmp")
    if os.fork() == 0:
        os.setsid()
        while True:
            time.sleep(0.05)
    return queue
def queue_left():
    return _librt().mq_open(b"/planted", O_RDONLY, 0, None) >= 0
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


def test_no_posix_queue_deep_path_or_setsid_process_reaches_the_next_student(forked):
    first = forked(LEFTOVERS)
    assert int(first.call("plant_more")) >= 0, "the queue must be planted for this test to mean anything"
    assert first.call("queue_left")
    first.close()
    second = forked(LEFTOVERS)
    files, _, _, processes = (int(v) for v in second.call("look"))
    assert not second.call("queue_left"), "the previous student's POSIX message queue survived"
    assert files == 0, "the previous student's deep path survived"
    assert processes <= 3, "the previous student's setsid() process survived"


#: Pairs of students in the process-limit test (without the wait for the uid to be clear, 4 of 5 runs of 8 pairs failed).
ROUNDS = 12
#: Limits under which a submission may keep three processes besides its worker.
FEW_PROCESSES = TEST_LIMITS.model_copy(update={"max_processes": 4, "memory_mb": 256})
#: A submission that forks processes which sleep forever, each holding memory (so its death takes a while).
FORKS_AND_STAYS = """
import os, time
def stay(count):
    made = 0
    for _ in range(int(count)):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            held = bytearray(96 * 1024 * 1024)
            while True:
                time.sleep(0.05)
        made += 1
    return made
def processes():
    return len([p for p in os.listdir("/proc") if p.isdigit()])
"""


def test_the_next_student_gets_the_whole_process_limit(forked):
    budget = FEW_PROCESSES.max_processes - 1  # besides the worker itself
    for _ in range(ROUNDS):
        first = forked(FORKS_AND_STAYS, FEW_PROCESSES)
        assert int(first.call("stay", budget)) == budget, "the first student must use its whole limit for this to mean anything"
        first.close()
        second = forked(FORKS_AND_STAYS, FEW_PROCESSES)
        assert int(second.call("processes")) <= 3, "a process of the previous student was still there"  # init, the server, this worker
        assert int(second.call("stay", budget)) == budget, "the previous student's processes counted against this one's limit"
        second.close()


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


def _comm(pid: int) -> bytes:
    with open(f"/proc/{pid}/comm", "rb") as comm:
        return comm.read().strip()


def _fork_server_process(server) -> int:
    """Host pid of the fork server's interpreter: the python child of bwrap's init in its sandbox."""
    parents = parent_pids()
    found = descendants(server.popen.pid, parents)
    servers = [p for p in found if _comm(p) != b"bwrap" and _comm(parents[p]) == b"bwrap"]
    assert len(servers) == 1, servers
    return servers[0]


#: How long the grader waits for a frozen fork server's answer in this test.
SHORT_ANSWER_TIMEOUT_S = 0.5


def test_a_fork_server_that_stops_answering_is_replaced_and_costs_no_submission(forked, monkeypatch):
    monkeypatch.setattr(zygote, "ZYGOTE_ANSWER_TIMEOUT_S", SHORT_ANSWER_TIMEOUT_S)
    first = forked("def ok():\n    return 1\n")
    assert int(first.call("ok")) == 1
    (server,) = spares._zygotes.values()
    os.kill(_fork_server_process(server), signal.SIGSTOP)
    closing = time.monotonic()
    first.close()  # its clean-up request is never answered
    assert time.monotonic() - closing < SHORT_ANSWER_TIMEOUT_S, "closing a submission must not wait for the server"
    started = time.monotonic()
    second = forked("def ok():\n    return 2\n")
    assert int(second.call("ok")) == 2
    assert not server.alive() and spares._zygotes[TEST_LIMITS] is not server
    assert time.monotonic() - started < PROMPT_REPLACEMENT_S


def test_a_dead_fork_server_is_replaced(forked):
    forked("def ok():\n    return 1\n").close()
    (zygote,) = spares._zygotes.values()
    zygote.close()
    assert int(forked("def ok():\n    return 5\n").call("ok")) == 5


def test_the_next_worker_is_forked_after_the_clean_up_and_before_it_is_needed(forked):
    first = forked("def ok():\n    return 1\n")
    (server,) = spares._zygotes.values()
    assert server._next is None, "no worker is forked ahead before a submission ends"
    first.close()
    ahead = server._next
    assert ahead is not None, "closing a submission should ask for the next worker"
    second = forked(LEFTOVERS)
    assert server._next is None and ahead.answer["pid"] == second._link.worker.pid, "the worker forked ahead serves next"
    files, _, _, processes = (int(v) for v in second.call("look"))
    assert files == 0 and processes <= 3


class _AnsweringServer:
    """A stand-in for a :class:`zygote.Zygote` whose ``finish`` answer says processes outlived the clean-up."""

    def __init__(self, answer: dict):
        self.answer = answer
        self.replaced_because = None

    def alive(self) -> bool:
        return self.replaced_because is None

    def post(self, op, fds=(), on_answer=lambda answer: None, **fields) -> None:
        on_answer(self.answer)

    def fork_ahead(self) -> None:
        pass

    def gone(self, reason: str) -> zygote.ZygoteGone:
        self.replaced_because = reason
        return zygote.ZygoteGone(reason)


def test_a_finish_that_leaves_processes_behind_replaces_the_whole_sandbox():
    server = _AnsweringServer({"returncode": -signal.SIGKILL, "leftovers": 2})
    worker = zygote.ForkedWorker(server, 5, -1, -1, -1)
    worker.kill()
    assert server.replaced_because is not None and "2 process" in server.replaced_because
    assert worker.returncode == -signal.SIGKILL


def test_a_clean_finish_keeps_the_sandbox():
    server = _AnsweringServer({"returncode": 0})
    zygote.ForkedWorker(server, 5, -1, -1, -1).kill()
    assert server.replaced_because is None
