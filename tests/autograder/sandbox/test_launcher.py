"""Choosing the isolation level, the worker's command line, and reading its exit."""

from __future__ import annotations

import os
import signal

import pytest

import autograder
from autograder.config import Defaults
from autograder.errors import GraderError
from autograder.sandbox import bwrap, host, isolation, launcher, process
from autograder.sandbox.isolation import Isolation

from .conftest import needs_bwrap

PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(autograder.__file__)))


@pytest.mark.parametrize("forced, expected", [("none", {"none"}), ("rlimits", {"rlimits", "uid+rlimits"})])
def test_the_environment_variable_forces_a_level(monkeypatch, forced, expected):
    monkeypatch.setenv(isolation.ISOLATION_ENV, forced)
    assert isolation.detect_isolation() in expected


def test_an_unknown_forced_level_is_a_grader_error(monkeypatch):
    monkeypatch.setenv(isolation.ISOLATION_ENV, "chroot")
    with pytest.raises(GraderError, match="none, rlimits, bwrap"):
        isolation.detect_isolation()


@needs_bwrap
def test_forcing_bwrap_works_where_bwrap_runs(monkeypatch):
    monkeypatch.setenv(isolation.ISOLATION_ENV, "bwrap")
    assert isolation.detect_isolation() == Isolation.BWRAP


@pytest.mark.parametrize(
    "returncode, isolation, words",
    [
        (-signal.SIGKILL, "none", "killed by SIGKILL"),
        (128 + signal.SIGKILL, "bwrap", "killed by SIGKILL"),
        (128 + signal.SIGXCPU, "bwrap", "CPU time limit"),
        (-signal.SIGSEGV, "uid+rlimits", "segmentation fault"),
        (137, "none", "exited with status 137"),
        (3, "bwrap", "exited with status 3"),
    ],
)
def test_exit_statuses_are_described(returncode, isolation, words):
    assert words in process.describe_exit(returncode, isolation)


def test_rlimits_follow_the_course_defaults():
    limits = Defaults(memory_mb=300, cpu_time_s=7, max_processes=9, max_file_size_mb=2)
    got = launcher.rlimits(limits, Isolation.BWRAP)
    assert got["RLIMIT_AS"][0] == 300 * host.MIB
    assert got["RLIMIT_CPU"] == [7, 7 + launcher.CPU_HARD_GRACE_S]
    assert got["RLIMIT_NPROC"][0] == 9
    assert got["RLIMIT_FSIZE"][0] == 2 * host.MIB
    assert got["RLIMIT_CORE"] == [0, 0]
    assert launcher.rlimits(limits, Isolation.NONE) == {}


@needs_bwrap
def test_the_bwrap_view_binds_nothing_of_the_project_but_numpy():
    args = bwrap.bwrap_arguments(Defaults())
    sources = [args[i + 1] for i, arg in enumerate(args) if arg in ("--ro-bind", "--bind", "--dev-bind")]
    assert not any(arg in ("--bind", "--dev-bind") for arg in args), "everything is bound read-only"
    numpy_dirs = set(host.numpy_dirs().values())
    inside_project = [s for s in sources if s.startswith(PROJECT_ROOT) and s not in numpy_dirs]
    assert inside_project == []
    assert {"--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session"} <= set(args)


def test_the_private_dir_holds_copies_readable_by_the_worker():
    root = host.private_dir()
    for name in ("worker.py", "protocol.py"):
        path = os.path.join(root, "worker", name)
        assert os.stat(path).st_mode & 0o004
    assert os.stat(root).st_mode & 0o005 == 0o005


def test_private_dirs_of_dead_graders_are_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(host.tempfile, "gettempdir", lambda: str(tmp_path))
    dead = tmp_path / f"{host.PRIVATE_DIR_PREFIX}999999999-abc"
    living = tmp_path / f"{host.PRIVATE_DIR_PREFIX}{os.getpid()}-abc"
    unrelated = tmp_path / "attn-sandbox-notapid"
    for folder in (dead, living, unrelated):
        folder.mkdir()
    host._remove_stale_private_dirs()
    assert not dead.exists() and living.exists() and unrelated.exists()


def test_a_root_grader_never_falls_back_to_root_workers_unasked(monkeypatch):
    monkeypatch.delenv(isolation.ISOLATION_ENV, raising=False)
    monkeypatch.setattr(isolation, "bwrap_works", lambda: False)
    monkeypatch.setattr(isolation, "uid_drop_works", lambda: False)
    monkeypatch.setattr(launcher.os, "geteuid", lambda: 0)
    isolation._detect.cache_clear()
    try:
        with pytest.raises(GraderError, match="refusing to run student code as root"):
            isolation.detect_isolation()
    finally:
        isolation._detect.cache_clear()
