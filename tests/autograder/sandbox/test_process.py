"""A started worker process: reading how it ended."""

from __future__ import annotations

import signal
import time

import pytest

from autograder.config import Defaults
from autograder.sandbox import cgroups, process
from autograder.sandbox.isolation import Isolation, choose_isolation

#: Seconds to wait for the started worker's shell to enter its cgroup.
WAIT_S = 5.0
POLL_S = 0.01


@pytest.mark.parametrize(
    "returncode, level, words",
    [
        (-signal.SIGKILL, Isolation.NONE, "killed by SIGKILL"),
        (128 + signal.SIGKILL, Isolation.BWRAP, "killed by SIGKILL"),
        (128 + signal.SIGXCPU, Isolation.BWRAP, "CPU time limit"),
        (-signal.SIGSEGV, Isolation.NONE, "segmentation fault"),
        (137, Isolation.NONE, "exited with status 137"),
        (3, Isolation.BWRAP, "exited with status 3"),
    ],
)
def test_exit_statuses_are_described(returncode, level, words):
    assert words in process.describe_exit(returncode, level)


def test_with_a_cgroup_subtree_each_worker_starts_in_a_bounded_child_of_its_own(tmp_path, monkeypatch):
    folder = tmp_path / "grading"
    folder.mkdir()
    (folder / "cgroup.procs").write_text("")
    (folder / "cgroup.subtree_control").write_text("memory pids")
    monkeypatch.setattr(process, "submission_cgroups", lambda: cgroups.SubmissionCgroups(folder))
    monkeypatch.setattr(cgroups, "REMOVE_ATTEMPTS", 1)
    worker = process.WorkerProcess.spawn(Defaults(), choose_isolation(Defaults()))
    try:
        (child,) = folder.glob(f"{cgroups.SANDBOX_PREFIX}*")
        assert worker.cgroup == child
        assert (child / "memory.max").read_text() == str(Defaults().memory_mb * 1024 * 1024)
        deadline = time.monotonic() + WAIT_S
        procs = child / "cgroup.procs"  # a plain file here: created, then written (wait for both)
        while not (procs.exists() and procs.read_text()) and time.monotonic() < deadline:
            time.sleep(POLL_S)
        assert procs.read_text().strip() == "0", "the worker's first process moved itself in"
    finally:
        worker.kill()
        worker.close_pipes()
