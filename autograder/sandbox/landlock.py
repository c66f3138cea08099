"""Landlock: the filesystem (and, on recent kernels, network and signal) boundary of a worker without bwrap.

With ``--sandbox none`` the worker restricts itself, irrevocably, to reading the
interpreter, the standard library and numpy and to writing its own private folder. From
Landlock ABI 4 on, TCP is refused; from ABI 6 on, signals to processes outside the worker's
domain (the grader) and their abstract sockets too. Runs inside the worker: standard
library only.
"""

from __future__ import annotations

import ctypes
import os
import struct

#: ``prctl`` option: no new privileges through execve (Landlock requires it of an unprivileged process).
PR_SET_NO_NEW_PRIVS = 38
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
U64 = struct.Struct("=Q")
PATH_BENEATH = struct.Struct("=Qi")  # packed: allowed_access, parent_fd


class ConfinementError(RuntimeError):
    """A confinement step the config asks for could not be applied: the worker must not run."""


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def no_new_privileges() -> None:
    """No execve may ever grant this process (or its children) privileges again."""
    if _libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise ConfinementError(f"prctl(PR_SET_NO_NEW_PRIVS) failed: {os.strerror(ctypes.get_errno())}")


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
