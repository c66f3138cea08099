"""The worker's command line and configuration: which limits, which identity, which sandbox.

See :mod:`.isolation` for the levels, :mod:`.bwrap` for the sandbox's filesystem, and
:mod:`.process` for the running process.
"""

from __future__ import annotations

import json
import os

from autograder.config import Defaults
from autograder.errors import GraderError
from autograder.sandbox.bwrap import SANDBOX_ROOT, bwrap_arguments, bwrap_executable
from autograder.sandbox.host import MIB, PYTHON_FLAGS, private_dir, processes_of, python_executable, sandbox_id
from autograder.sandbox.isolation import Isolation

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


def rlimits(limits: Defaults, isolation: Isolation) -> dict[str, list[int]]:
    """Resource limits for the worker, by ``resource`` constant name."""
    if isolation == Isolation.NONE:
        return {}
    processes = limits.max_processes
    if isolation == Isolation.RLIMITS and os.getuid() != 0:
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


def _worker_config(limits: Defaults, isolation: Isolation, in_fd: int, out_fd: int) -> dict:
    drops = os.geteuid() == 0 and isolation in (Isolation.BWRAP, Isolation.UID_RLIMITS)
    return {
        "in": in_fd,
        "out": out_fd,
        "rlimits": rlimits(limits, isolation),
        "uid": sandbox_id() if drops else None,
        "gid": sandbox_id() if drops else None,
        "parent_death_signal": isolation != Isolation.BWRAP,
    }


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
        "rlimits": rlimits(limits, Isolation.BWRAP),
        "uid": sandbox_id(),
        "gid": sandbox_id(),
    }
    return _bwrapped_worker(limits, config)


def _bwrapped_worker(limits: Defaults, config: dict) -> list[str]:
    """The argv that runs worker.py with ``config`` inside a bwrap sandbox."""
    executable = bwrap_executable()
    if executable is None:
        raise GraderError("bwrap isolation requested but no bwrap executable was found")
    script = f"{SANDBOX_ROOT}/worker/worker.py"
    return [executable, *bwrap_arguments(limits), python_executable(), *PYTHON_FLAGS, script, json.dumps(config)]


def worker_command(limits: Defaults, isolation: Isolation, in_fd: int, out_fd: int) -> list[str]:
    """The argv that starts the worker at ``isolation``, talking on ``in_fd``/``out_fd``."""
    config = _worker_config(limits, isolation, in_fd, out_fd)
    if isolation == Isolation.BWRAP:
        return _bwrapped_worker(limits, config)
    script = os.path.join(private_dir(), "worker", "worker.py")
    return [python_executable(), *PYTHON_FLAGS, script, json.dumps(config)]
