"""How a worker confines itself before any student code runs (inside the sandbox).

Each step is a function of the worker's JSON config; the worker and every worker the fork
server forks call :func:`confine` with it. Standard library only.

Without bubblewrap (``--sandbox none``) the filesystem boundary is Landlock
(:mod:`landlock`). At every level a seccomp filter (:mod:`seccomp`) keeps the worker from
making any socket.
"""

from __future__ import annotations

import ctypes
import os
import signal
import struct

if __package__:
    from . import landlock, seccomp
else:  # inside the sandbox, the worker's modules sit side by side
    import landlock
    import seccomp

#: ``unshare`` flags: a mount namespace and an IPC namespace of the worker's own.
CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
#: ``mount`` flags: read-only, no set-uid, no devices, recursive, private propagation.
MS_RDONLY, MS_NOSUID, MS_NODEV = 1, 2, 4
MS_REC, MS_PRIVATE = 1 << 14, 1 << 18
#: Mode of the worker's /tmp (writable by all, sticky), and where POSIX shared memory would live.
TMP_MODE = 0o1777
SHM_DIR = "/dev/shm"
#: An empty, read-only /dev/shm holds one inode: its root.
SHM_INODES = 1
#: ``prctl`` options: a signal when the parent dies; drop a capability from the bounding set.
PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
#: ``capset`` header version 3 (two 32-bit words per set).
LINUX_CAPABILITY_VERSION_3 = 0x20080522
CAPABILITY_WORDS = 2
#: Where the highest capability number is published.
CAP_LAST_CAP_FILE = "/proc/sys/kernel/cap_last_cap"
#: One error for every step that cannot be applied.
ConfinementError = landlock.ConfinementError


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
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def drop_capabilities() -> None:
    """Empty the bounding, effective, permitted and inheritable capability sets (for a root worker)."""
    libc = _libc()
    try:
        with open(CAP_LAST_CAP_FILE) as handle:
            last = int(handle.read())
    except (OSError, ValueError):
        last = 63
    for capability in range(last + 1):
        libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)  # fails harmlessly without CAP_SETPCAP
    header = struct.pack("=Ii", LINUX_CAPABILITY_VERSION_3, 0)
    data = bytes(3 * 4 * CAPABILITY_WORDS)
    if libc.capset(header, data) != 0:
        raise ConfinementError(f"capset failed: {os.strerror(ctypes.get_errno())}")


def _mount(source: str, target: str, kind: str | None, flags: int, options: str | None) -> None:
    encode = (lambda text: None if text is None else text.encode())
    if _libc().mount(encode(source), encode(target), encode(kind), flags, encode(options)) != 0:
        raise ConfinementError(f"mount {target} failed: {os.strerror(ctypes.get_errno())}")


def private_tmp(size_bytes: int, max_files: int) -> None:
    """Give this worker its own mount and IPC namespaces, a fresh bounded /tmp, and an empty /dev/shm.

    The tmpfs is bounded in bytes (``size``) and in files and folders (``nr_inodes``: empty
    folders cost no bytes but kernel memory). Nothing of it, and no System V or POSIX IPC
    object, outlives the worker's last process.

    Raises
    ------
    ConfinementError
        Without the privilege to make namespaces and mounts (CAP_SYS_ADMIN), or when a mount fails.
    """
    if _libc().unshare(CLONE_NEWNS | CLONE_NEWIPC) != 0:
        raise ConfinementError(f"unshare failed: {os.strerror(ctypes.get_errno())}")
    _mount("none", "/", None, MS_REC | MS_PRIVATE, None)
    _mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={size_bytes},nr_inodes={max_files},mode={TMP_MODE:o}")
    if os.path.isdir(SHM_DIR):
        _mount("tmpfs", SHM_DIR, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, f"size={size_bytes},nr_inodes={SHM_INODES}")
    os.chdir("/tmp")


def confine(config: dict) -> None:
    """Every confinement step the config asks for, in order: own /tmp, limits, identity, capabilities, files, sockets.

    Raises
    ------
    ConfinementError
        When a step cannot be applied (the worker must then not serve).
    """
    if config.get("tmp") is not None:
        private_tmp(config["tmp"]["size"], config["tmp"]["files"])
    apply_rlimits(config.get("rlimits", {}))
    if config.get("chdir"):
        os.chdir(config["chdir"])
    drop_privileges(config.get("uid"), config.get("gid"))
    if config.get("drop_capabilities"):
        drop_capabilities()
    if config.get("landlock") is not None:
        landlock.restrict_filesystem(config["landlock"])
    landlock.no_new_privileges()
    if config.get("no_sockets", True):  # on unless a config says otherwise: a forgotten key fails closed
        seccomp.deny_sockets()
    if config.get("parent_death_signal"):
        die_with_parent()
