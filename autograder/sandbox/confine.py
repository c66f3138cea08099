"""How a worker confines itself before any student code runs (inside the sandbox).

Each step is a function of the worker's JSON config; the worker and every worker the fork
server forks call :func:`confine` with it. Standard library only.
"""

from __future__ import annotations

import os
import signal

#: ``prctl`` option that asks for a signal when the parent dies.
PR_SET_PDEATHSIG = 1


def apply_rlimits(rlimits: dict[str, list[int]]) -> None:
    """Lower each named resource limit to ``[soft, hard]``."""
    import resource

    for name, (soft, hard) in rlimits.items():
        resource.setrlimit(getattr(resource, name), (soft, hard))


def drop_privileges(uid: int | None, gid: int | None) -> None:
    """Become ``uid``/``gid`` with no supplementary groups, for good.

    Raises
    ------
    RuntimeError
        If the process could regain root afterwards.
    """
    if uid is None:
        return
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    try:
        os.setuid(0)
    except PermissionError:
        return
    raise RuntimeError("the worker could regain root after dropping privileges")


def die_with_parent() -> None:
    """Ask the kernel for SIGKILL when the grader dies (where no sandbox does it)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def confine(config: dict) -> None:
    """Every confinement step the config asks for, in order: limits, then identity."""
    apply_rlimits(config.get("rlimits", {}))
    drop_privileges(config.get("uid"), config.get("gid"))
    if config.get("parent_death_signal"):
        die_with_parent()
