"""What a worker needs from the host: the interpreter, numpy, its own files, an unprivileged id.

Everything here runs in the grader. The worker's files (``worker.py`` and the modules it
imports) are copied into a private, root-owned directory, so that no sandbox ever sees
the project they come from.
"""

from __future__ import annotations

import atexit
import glob
import importlib.util
import os
import shutil
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

from autograder.errors import GraderError
from autograder.paths import HIDDEN_TESTS_DIR, PROJECT_ROOT
from autograder.sandbox.sweep import remove_tree

MIB = 1024 * 1024
#: Mode of directories a worker must traverse.
DIR_MODE = 0o755
#: Mode of the copied worker files (readable by the worker's uid).
FILE_MODE = 0o644
#: The uid and gid of "nobody", used when no per-grader uid is available.
NOBODY_ID = 65534
#: Unprivileged ids are taken from [BASE, BASE + SPAN), one per grader process, so that
#: concurrent graders do not share an RLIMIT_NPROC count or signal each other's workers.
SANDBOX_ID_BASE = 1_600_000_000
SANDBOX_ID_SPAN = 1_000_000
#: Name prefix of each grader process's private directory (its pid follows).
PRIVATE_DIR_PREFIX = "attn-sandbox-"
#: The files of the worker, copied next to each other into ``<private dir>/worker``.
WORKER_SOURCES = ("worker.py", "protocol.py", "wire_values.py", "returned.py", "control.py", "confine.py", "landlock.py",
                  "seccomp.py", "forkserver.py", "sweep.py", "standin.py", "running.py")
_NUMPY_DIRS = ("numpy", "numpy.libs")

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
#: Where installed Python packages live on a host, as glob patterns under each prefix.
SITE_PATTERNS = ("lib*/python*/site-packages", "lib*/python*/dist-packages")
#: Prefixes searched for package folders besides the grader's own.
SYSTEM_PREFIXES = ("/usr", "/usr/local", "/opt")
#: Top-level folders the dynamic loader and the interpreter need.
SYSTEM_FOLDERS = ("/usr", "/bin", "/lib", "/lib32", "/lib64", "/libx32")
#: Devices a worker without bwrap may read and write.
WORKER_DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")


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
            remove_tree(str(path))


@lru_cache(maxsize=None)
def private_dir() -> str:
    """A root-owned, world-readable directory with ``worker/`` and ``site/``.

    ``worker/`` holds copies of the worker's modules; ``site/`` holds symlinks to numpy
    (used when there is no bwrap to bind-mount it). Removed at exit; those of graders
    that were killed before they could remove theirs are removed here.
    """
    _remove_stale_private_dirs()
    root = Path(tempfile.mkdtemp(prefix=f"{PRIVATE_DIR_PREFIX}{os.getpid()}-"))
    atexit.register(remove_tree, str(root))
    for sub in ("worker", "site"):
        (root / sub).mkdir()
    here = Path(__file__).resolve().parent
    for name in WORKER_SOURCES:
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


def host_site_packages() -> list[str]:
    """Every folder of installed packages on this host a worker could import from, resolved.

    The grader's own (base installation, virtual environment, user site), the system's
    (``/usr/lib/python3/dist-packages`` and the like), and any on ``sys.path``.
    """
    import site

    prefixes = {*SYSTEM_PREFIXES, sys.base_prefix, sys.prefix}
    folders = site.getsitepackages(sorted(prefixes)) + [site.getusersitepackages()]
    folders += [match for prefix in prefixes for pattern in SITE_PATTERNS for match in glob.glob(os.path.join(prefix, pattern))]
    folders += [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    return sorted({os.path.realpath(p) for p in folders if os.path.isdir(p)})


def forbidden_paths() -> list[str]:
    """What a worker must never read: installed packages, the project (hidden tests included)."""
    return sorted({*host_site_packages(), str(PROJECT_ROOT), str(HIDDEN_TESTS_DIR)})


def _beneath(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _carve(root: str, forbidden: list[str]) -> list[str]:
    """``root`` if it holds nothing forbidden, else the parts of it that hold nothing forbidden."""
    if any(_beneath(root, f) for f in forbidden):
        return []
    if not any(_beneath(f, root) for f in forbidden):
        return [root]
    try:
        children = sorted(os.listdir(root))
    except OSError:
        return []
    return [part for name in children for part in _carve(os.path.realpath(os.path.join(root, name)), forbidden)]


@lru_cache(maxsize=None)
def readable_without_bwrap() -> tuple[str, ...]:
    """What a worker confined by Landlock may read: system folders and the interpreter, minus every
    folder of :func:`forbidden_paths`, plus numpy and the worker's own files."""
    forbidden = forbidden_paths()
    roots = {os.path.realpath(p) for p in (*SYSTEM_FOLDERS, sys.base_prefix) if os.path.exists(p)}
    carved = [part for root in sorted(roots) for part in _carve(root, forbidden)]
    return tuple(sorted(set(carved))) + (*numpy_dirs().values(), os.path.join(private_dir(), "worker"), "/proc/self")


def landlock_rules(tmp_dir: str) -> dict:
    """The worker's Landlock rules: read (see :func:`readable_without_bwrap`), write ``tmp_dir``, a few devices."""
    return {"read": list(readable_without_bwrap()), "write": [tmp_dir], "devices": list(WORKER_DEVICES)}
