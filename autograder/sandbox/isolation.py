"""Isolation levels: which ones work here, and which one a grading run uses.

Levels, strongest first:

``Isolation.BWRAP``
    bubblewrap gives the worker its own mount, PID, network, IPC, UTS and cgroup
    namespaces and a filesystem holding only what it needs (see :mod:`.bwrap`). Run as
    root, bwrap is privileged and keeps only CAP_SETUID/CAP_SETGID for the worker, which
    uses them to drop to an unprivileged per-grader uid before any student code runs.
``Isolation.UID_RLIMITS``
    A plain ``python -I -S`` child in its own session, with the resource limits and the
    unprivileged uid (when the grader runs as root), but the host filesystem and network.
``Isolation.RLIMITS``
    The same without the uid change.
``Isolation.NONE``
    A plain child process: still out of the grader's process, nothing else. Tests only.

The environment variable ``ATTN_SANDBOX=none|rlimits|bwrap`` forces a level.
"""

from __future__ import annotations

import os
import subprocess
from enum import StrEnum
from functools import lru_cache

from autograder.config import Defaults
from autograder.errors import GraderError
from autograder.sandbox.bwrap import SANDBOX_ROOT, bwrap_arguments, bwrap_executable
from autograder.sandbox.host import PYTHON_FLAGS, WORKER_ENV, private_dir, python_executable, sandbox_id


class Isolation(StrEnum):
    """How a worker is isolated; the value is what results and the gradebook record."""

    BWRAP = "bwrap"
    UID_RLIMITS = "uid+rlimits"
    RLIMITS = "rlimits"
    NONE = "none"


#: Environment variable that forces a level: ``none``, ``rlimits`` or ``bwrap``.
ISOLATION_ENV = "ATTN_SANDBOX"
#: Wall-clock seconds a self-test may take.
SELF_TEST_TIMEOUT_S = 10.0


def _self_test(command: list[str]) -> bool:
    try:
        done = subprocess.run(command, env=WORKER_ENV, capture_output=True, timeout=SELF_TEST_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@lru_cache(maxsize=None)
def bwrap_works() -> bool:
    """Whether bwrap starts the interpreter with the full mount set and can drop root (cached)."""
    executable = bwrap_executable()
    if executable is None:
        return False
    uid = sandbox_id()
    drop = f"os.setgroups([]); os.setgid({uid}); os.setuid({uid}); " if os.geteuid() == 0 else ""
    check = f"import os; {drop}assert os.path.isdir('{SANDBOX_ROOT}/site/numpy')"
    return _self_test([executable, *bwrap_arguments(Defaults()), python_executable(), *PYTHON_FLAGS, "-c", check])


@lru_cache(maxsize=None)
def uid_drop_works() -> bool:
    """Whether the worker's interpreter, standard library and numpy work under the sandbox uid."""
    uid = sandbox_id()
    site = os.path.join(private_dir(), "site")
    check = (
        f"import os, sys; os.setgroups([]); os.setgid({uid}); os.setuid({uid}); "
        f"sys.path.append({site!r}); import signal, ctypes, numpy"
    )
    return _self_test([python_executable(), *PYTHON_FLAGS, "-c", check])


def _without_bwrap() -> Isolation:
    """``uid+rlimits`` as root when the unprivileged uid can run the worker, else ``rlimits``."""
    return Isolation.UID_RLIMITS if os.geteuid() == 0 and uid_drop_works() else Isolation.RLIMITS


@lru_cache(maxsize=None)
def _detect(forced: str | None) -> Isolation:
    if forced == Isolation.NONE:
        return Isolation.NONE
    if forced == Isolation.RLIMITS:
        return _without_bwrap()
    if forced == Isolation.BWRAP:
        if not bwrap_works():
            raise GraderError(f"{ISOLATION_ENV}=bwrap but bwrap cannot start the worker on this machine")
        return Isolation.BWRAP
    if forced is not None:
        raise GraderError(f"{ISOLATION_ENV} must be one of none, rlimits, bwrap (got {forced!r})")
    if bwrap_works():
        return Isolation.BWRAP
    level = _without_bwrap()
    if level == Isolation.RLIMITS and os.geteuid() == 0:
        raise GraderError(
            "refusing to run student code as root: bwrap cannot run here and the unprivileged uid cannot run "
            f"the interpreter ({python_executable()}); install bubblewrap, or put Python where other users can "
            f"read it, or set {ISOLATION_ENV}=rlimits to accept root workers knowingly"
        )
    return level


def detect_isolation() -> Isolation:
    """The strongest isolation level that works here (cached), or the one forced by ``ATTN_SANDBOX``.

    Raises
    ------
    GraderError
        When ``ATTN_SANDBOX`` names an unknown level, when ``bwrap`` is forced but cannot
        run, or when nothing but root workers would be left (never chosen unasked).
    """
    return _detect(os.environ.get(ISOLATION_ENV) or None)
