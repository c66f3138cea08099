"""How a worker confines itself before any student code runs (inside the sandbox).

Each step is a function of the worker's JSON config; the worker and every worker the fork
server forks call :func:`confine` with it. Standard library only.

Without bubblewrap (``--sandbox none``) the filesystem boundary is Landlock: the worker
restricts itself, irrevocably, to reading the interpreter, the standard library and numpy
and to writing its own private folder; where the kernel's Landlock ABI offers it, TCP and
signals to processes outside the worker's domain are refused too.
"""

from __future__ import annotations

import ctypes
import os
import signal
import struct

#: ``unshare`` flags: a mount namespace and an IPC namespace of the worker's own.
CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
#: ``mount`` flags: read-only, no set-uid, no devices, remount, recursive, private propagation.
MS_RDONLY, MS_NOSUID, MS_NODEV = 1, 2, 4
MS_REC, MS_PRIVATE = 1 << 14, 1 << 18
#: Mode of the worker's /tmp (writable by all, sticky), and where POSIX shared memory would live.
TMP_MODE = 0o1777
SHM_DIR = "/dev/shm"
#: An empty, read-only /dev/shm holds one inode: its root.
SHM_INODES = 1
#: ``prctl`` options: a signal when the parent dies; no new privileges through execve;
#: drop a capability from the bounding set.
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP = 24
#: ``capset`` header version 3 (two 32-bit words per set).
LINUX_CAPABILITY_VERSION_3 = 0x20080522
CAPABILITY_WORDS = 2
#: Where the highest capability number is published.
CAP_LAST_CAP_FILE = "/proc/sys/kernel/cap_last_cap"
#: Landlock system calls (the same numbers on every architecture) and their constants.
SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
#: Filesystem rights: execute, write, read files; read folders (the rest make and remove things).
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_TRUNCATE, FS_IOCTL_DEV = 1 << 14, 1 << 15
FS_READ = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
#: Every filesystem right each Landlock ABI knows (v2 adds REFER, v3 TRUNCATE, v5 IOCTL_DEV).
FS_ALL_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1, 5: (1 << 16) - 1}
#: Rights that make sense on a file (not a folder) for the device rules.
FS_FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
#: Network rights (ABI 4): bind and connect TCP; scopes (ABI 6): abstract sockets and signals.
NET_ABI, NET_TCP = 4, (1 << 0) | (1 << 1)
SCOPE_ABI, SCOPES = 6, (1 << 0) | (1 << 1)
#: Size of ``struct landlock_ruleset_attr`` as each ABI knows it (fs; fs+net; fs+net+scoped).
RULESET_FIELDS = {1: 1, NET_ABI: 2, SCOPE_ABI: 3}
U64 = struct.Struct("=Q")
PATH_BENEATH = struct.Struct("=Qi")  # packed: allowed_access, parent_fd


class ConfinementError(RuntimeError):
    """A confinement step the config asks for could not be applied: the worker must not run."""


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


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def no_new_privileges() -> None:
    """No execve may ever grant this process (or its children) privileges again."""
    if _libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise ConfinementError(f"prctl(PR_SET_NO_NEW_PRIVS) failed: {os.strerror(ctypes.get_errno())}")


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


def landlock_abi() -> int:
    """The Landlock ABI version of this kernel (0 when Landlock is missing or disabled)."""
    version = _libc().syscall(SYS_LANDLOCK_CREATE_RULESET, None, 0, LANDLOCK_CREATE_RULESET_VERSION)
    return max(int(version), 0)


def _ruleset(abi: int) -> int:
    fields = [FS_ALL_BY_ABI[min(abi, max(FS_ALL_BY_ABI))]]
    if abi >= NET_ABI:
        fields.append(NET_TCP)
    if abi >= SCOPE_ABI:
        fields.append(SCOPES)
    attr = b"".join(U64.pack(value) for value in fields)
    fd = _libc().syscall(SYS_LANDLOCK_CREATE_RULESET, attr, len(attr), 0)
    if fd < 0:
        raise ConfinementError(f"landlock_create_ruleset failed: {os.strerror(ctypes.get_errno())}")
    return int(fd)


def _allow(ruleset: int, path: str, rights: int) -> None:
    """Allow ``rights`` beneath ``path`` (a missing path is skipped: there is nothing to allow)."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        if not os.path.isdir(path):
            rights &= FS_FILE_RIGHTS
        attr = PATH_BENEATH.pack(rights, fd)
        if _libc().syscall(SYS_LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, attr, 0) != 0:
            raise ConfinementError(f"landlock_add_rule({path}) failed: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)


def restrict_filesystem(rules: dict) -> int:
    """Allow only ``rules["read"]`` (read, list, execute) and ``rules["write"]`` (everything), for good.

    Returns the ABI applied: from 4 on TCP is refused, from 6 on signals to and abstract
    sockets of processes outside the worker's domain too.

    Raises
    ------
    ConfinementError
        When the kernel has no Landlock or refuses a step.
    """
    abi = landlock_abi()
    if abi < 1:
        raise ConfinementError("this kernel offers no Landlock, so the worker cannot be kept away from the course files")
    ruleset = _ruleset(abi)
    everything = FS_ALL_BY_ABI[min(abi, max(FS_ALL_BY_ABI))]
    try:
        for path in rules.get("read", []):
            _allow(ruleset, path, FS_READ)
        for path in rules.get("write", []):
            _allow(ruleset, path, everything)
        for path in rules.get("devices", []):
            _allow(ruleset, path, FS_READ_FILE | FS_WRITE_FILE)
        no_new_privileges()
        if _libc().syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0:
            raise ConfinementError(f"landlock_restrict_self failed: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(ruleset)
    return abi


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
    """Every confinement step the config asks for, in order: own /tmp, limits, identity, capabilities, files.

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
        restrict_filesystem(config["landlock"])
    no_new_privileges()
    if config.get("parent_death_signal"):
        die_with_parent()
