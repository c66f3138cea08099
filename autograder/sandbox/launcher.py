"""The worker's command line and configuration: which limits, which identity, which sandbox.

See :mod:`.isolation` for the levels, :mod:`.bwrap` for the sandbox's filesystem, and
:mod:`.process` for the running process.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from autograder.errors import GraderError
from autograder.sandbox.bwrap import MIN_TMP_BYTES, SANDBOX_ROOT, bwrap_arguments, bwrap_executable
from autograder.sandbox.host import (
    MIB,
    PYTHON_FLAGS,
    landlock_rules,
    private_dir,
    python_executable,
    sandbox_id,
)
from autograder.sandbox.isolation import Isolation, uid_drop_works
from autograder.sandbox.sweep import processes_of

if TYPE_CHECKING:
    from autograder.config import Defaults

#: Files a worker may hold open: the protocol and numpy need a handful.
MAX_OPEN_FILES = 64
#: Extra seconds between the soft CPU limit (SIGXCPU) and the hard one (SIGKILL).
CPU_HARD_GRACE_S = 1


def _lowered(resource_name: str, soft: int, hard: int) -> list[int]:
    """``[soft, hard]`` clipped to the current hard limit (limits can only go down)."""
    import resource

    _, current = resource.getrlimit(getattr(resource, resource_name))
    if current != resource.RLIM_INFINITY:
        hard, soft = min(hard, current), min(soft, current)
    return [soft, hard]


def worker_uid(isolation: Isolation) -> int | None:
    """The uid the worker drops to: the sandbox uid for a root grader (under bwrap, or without it
    when that uid can run Python), else None (the worker keeps the grader's uid)."""
    if os.geteuid() != 0:
        return None
    if isolation == Isolation.BWRAP or uid_drop_works():
        return sandbox_id()
    return None


def rlimits(limits: Defaults, uid: int | None = None) -> dict[str, list[int]]:
    """Resource limits for a worker running as ``uid`` (None: the grader's own), by ``resource`` name.

    RLIMIT_NPROC counts every process of the worker's uid: the sandbox uid owns nothing else,
    but a worker keeping the grader's uid is allowed ``max_processes`` beyond what that uid runs.
    """
    processes = limits.max_processes
    if uid is None and os.getuid() != 0:
        processes += processes_of(os.getuid())
    wanted = {
        "RLIMIT_AS": (limits.memory_mb * MIB,) * 2,
        "RLIMIT_CPU": (limits.cpu_time_s, limits.cpu_time_s + CPU_HARD_GRACE_S),
        "RLIMIT_NPROC": (processes,) * 2,
        "RLIMIT_FSIZE": (limits.max_file_size_mb * MIB,) * 2,
        "RLIMIT_CORE": (0, 0),
        "RLIMIT_NOFILE": (MAX_OPEN_FILES,) * 2,  # bounds memory held in memfds and pipes, which RLIMIT_AS misses
    }
    return {name: _lowered(name, soft, hard) for name, (soft, hard) in wanted.items()}


def tmp_bounds(limits: Defaults) -> dict:
    """The bounds of a worker's own /tmp under bwrap: bytes and files."""
    return {"size": max(limits.max_file_size_mb * MIB, MIN_TMP_BYTES), "files": limits.tmp_max_files}


def _worker_config(limits: Defaults, isolation: Isolation, in_fd: int, out_fd: int, tmp_dir: str | None) -> dict:
    uid = worker_uid(isolation)
    config = {
        "in": in_fd,
        "out": out_fd,
        "rlimits": rlimits(limits, uid),
        "uid": uid,
        "gid": uid,
        "drop_capabilities": True,
        "no_sockets": True,
        "parent_death_signal": isolation == Isolation.NONE,
    }
    if isolation == Isolation.NONE:
        config.update(chdir=tmp_dir, landlock=landlock_rules(tmp_dir))
    else:
        config.update(tmp=tmp_bounds(limits))
    return config


def zygote_command(limits: Defaults, control_fd: int) -> list[str]:
    """The argv of a bwrap sandbox whose worker forks one confined worker per submission.

    Only for a root grader, where each forked worker drops to the sandbox uid (so the
    fork server can sweep away everything a finished worker left behind).
    """
    if os.geteuid() != 0:
        raise GraderError("the fork server needs a root grader")
    config = {
        "zygote": True,
        "control": control_fd,
        "rlimits": rlimits(limits, sandbox_id()),
        "uid": sandbox_id(),
        "gid": sandbox_id(),
        "drop_capabilities": True,
        "no_sockets": True,
        "tmp": tmp_bounds(limits),
    }
    return _bwrapped_worker(config)


def _bwrapped_worker(config: dict) -> list[str]:
    """The argv that runs worker.py with ``config`` inside a bwrap sandbox."""
    executable = bwrap_executable()
    if executable is None:
        raise GraderError("bwrap isolation requested but no bwrap executable was found")
    script = f"{SANDBOX_ROOT}/worker/worker.py"
    return [executable, *bwrap_arguments(), python_executable(), *PYTHON_FLAGS, script, json.dumps(config)]


def worker_command(limits: Defaults, isolation: Isolation, in_fd: int, out_fd: int, tmp_dir: str | None = None) -> list[str]:
    """The argv that starts the worker at ``isolation``, talking on ``in_fd``/``out_fd``.

    Without bwrap, ``tmp_dir`` is the worker's private folder: the only place it may write.
    """
    config = _worker_config(limits, isolation, in_fd, out_fd, tmp_dir)
    if isolation == Isolation.BWRAP:
        return _bwrapped_worker(config)
    script = os.path.join(private_dir(), "worker", "worker.py")
    return [python_executable(), *PYTHON_FLAGS, script, json.dumps(config)]
