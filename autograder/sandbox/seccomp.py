"""A seccomp filter: the worker, and every process it starts, creates no socket of any family.

Landlock refuses TCP (ABI 4) and abstract Unix sockets outside the worker's domain (ABI 6),
but not UDP, raw or netlink sockets, nor a connection to a listener's pathname socket. So
the worker installs, before any student code runs, a classic BPF program that answers
EPERM to ``socket``, ``socketpair``, ``socketcall`` (where the architecture has it),
``io_uring_setup`` (io_uring can make sockets of its own) and ``pidfd_getfd`` (another
process's sockets). A system call of any other architecture than the process's own (the
32-bit ABI of x86_64, through ``int 0x80``) and every x32 call are refused too, whatever
they are. The filter is inherited by every child and kept across ``execve``; it cannot be
removed. On an architecture this module does not know the worker refuses to start.

Runs inside the worker: standard library only.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
from typing import NamedTuple

if __package__:
    from .landlock import ConfinementError, _libc, no_new_privileges
else:  # inside the sandbox, the worker's modules sit side by side
    from landlock import ConfinementError, _libc, no_new_privileges

#: ``seccomp`` operations, flags and return actions (linux/seccomp.h).
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_GET_ACTION_AVAIL = 2
SECCOMP_FILTER_FLAG_TSYNC = 1
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
#: What a refused call returns: -1 with errno EPERM.
DENY = SECCOMP_RET_ERRNO | errno.EPERM
#: Offsets in ``struct seccomp_data``: the call's number, then its AUDIT_ARCH.
NR_OFFSET, ARCH_OFFSET = 0, 4
#: Classic BPF opcodes: load a 32-bit word, jump if equal / greater or equal to a constant, return.
BPF_LD_W_ABS = 0x20
BPF_JEQ_K = 0x15
BPF_JGE_K = 0x35
BPF_RET_K = 0x06
INSTRUCTION = struct.Struct("=HBBI")  # struct sock_filter: code, jt, jf, k
#: The x32 ABI's calls carry this bit in their number on x86_64.
X32_SYSCALL_BIT = 0x40000000
#: What the filter is checked against once installed: a Unix datagram socket (and pair).
AF_UNIX, SOCK_DGRAM = 1, 2


class Architecture(NamedTuple):
    """One architecture's AUDIT_ARCH value, the numbers of the calls it refuses, and its ``seccomp`` call."""

    audit_arch: int
    denied: dict[str, int]
    seccomp_nr: int
    refuse_x32: bool = False


#: Syscall numbers from the kernel's tables: arch/x86/entry/syscalls/syscall_64.tbl and syscall_32.tbl,
#: include/uapi/asm-generic/unistd.h (aarch64). The last two calls have the same number everywhere.
ARCHITECTURES = {
    "x86_64": Architecture(0xC000003E, {"socket": 41, "socketpair": 53, "io_uring_setup": 425, "pidfd_getfd": 438},
                           seccomp_nr=317, refuse_x32=True),
    "aarch64": Architecture(0xC00000B7, {"socket": 198, "socketpair": 199, "io_uring_setup": 425, "pidfd_getfd": 438},
                            seccomp_nr=277),
    "i386": Architecture(0x40000003, {"socketcall": 102, "socket": 359, "socketpair": 360, "io_uring_setup": 425,
                                      "pidfd_getfd": 438}, seccomp_nr=354),
}
#: ``uname -m`` of each architecture's machines, for a process of that width.
MACHINES = {("x86_64", 64): "x86_64", ("aarch64", 64): "aarch64", ("arm64", 64): "aarch64", ("x86_64", 32): "i386",
            **{(name, 32): "i386" for name in ("i386", "i486", "i586", "i686")}}


def this_architecture() -> str:
    """The name of this process's architecture (a key of :data:`ARCHITECTURES`), or ``uname -m`` when unknown."""
    machine = os.uname().machine
    return MACHINES.get((machine, 8 * struct.calcsize("P")), machine)


def _instruction(code: int, k: int, jt: int | str = 0, jf: int | str = 0) -> tuple:
    return code, jt, jf, k


def filter_program(name: str) -> bytes:
    """The BPF program for architecture ``name``: refuse its socket calls and any other architecture's calls.

    Parameters
    ----------
    name : str
        A key of :data:`ARCHITECTURES`.

    Returns
    -------
    bytes
        The ``struct sock_filter`` array.

    Raises
    ------
    ConfinementError
        When ``name`` is not an architecture this module knows (the worker must then not run).
    """
    arch = ARCHITECTURES.get(name)
    if arch is None:
        raise ConfinementError(f"no socket filter for the {name!r} architecture, so the worker cannot be kept off the network")
    program = [_instruction(BPF_LD_W_ABS, ARCH_OFFSET), _instruction(BPF_JEQ_K, arch.audit_arch, jf="deny"),
               _instruction(BPF_LD_W_ABS, NR_OFFSET)]
    if arch.refuse_x32:
        program.append(_instruction(BPF_JGE_K, X32_SYSCALL_BIT, jt="deny"))
    program += [_instruction(BPF_JEQ_K, number, jt="deny") for number in arch.denied.values()]
    program.append(_instruction(BPF_RET_K, SECCOMP_RET_ALLOW))
    deny_at = len(program)
    program.append(_instruction(BPF_RET_K, DENY))
    resolve = (lambda at, jump: deny_at - at - 1 if jump == "deny" else jump)
    return b"".join(INSTRUCTION.pack(code, resolve(at, jt), resolve(at, jf), k) for at, (code, jt, jf, k) in enumerate(program))


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def problem() -> str | None:
    """Why this process cannot filter its sockets, or None when it can (the grader asks before it starts a worker)."""
    name = this_architecture()
    if name not in ARCHITECTURES:
        return f"the worker's socket filter knows no {name!r} architecture (only {', '.join(ARCHITECTURES)})"
    action = ctypes.c_uint32(SECCOMP_RET_ERRNO)
    if _libc().syscall(ARCHITECTURES[name].seccomp_nr, SECCOMP_GET_ACTION_AVAIL, 0, ctypes.byref(action)) != 0:
        return f"this kernel offers no seccomp filter ({os.strerror(ctypes.get_errno())}; Linux 4.14 or later needed)"
    return None


def _still_makes_sockets(libc) -> bool:
    """Whether a socket or a socket pair can still be made (a filter that does not hold)."""
    pair = (ctypes.c_int * 2)()
    made = [libc.socket(AF_UNIX, SOCK_DGRAM, 0), libc.socketpair(AF_UNIX, SOCK_DGRAM, 0, pair)]
    for fd in [made[0], *(pair if made[1] == 0 else ())]:
        if fd >= 0:
            os.close(fd)
    return made != [-1, -1]


def deny_sockets(name: str | None = None) -> None:
    """Install the filter of :func:`filter_program` on every thread of this process, for good.

    Sets ``PR_SET_NO_NEW_PRIVS`` first (:func:`landlock.no_new_privileges`): the kernel
    requires it of a process without CAP_SYS_ADMIN, and no execve may shed the filter.

    Parameters
    ----------
    name : str, optional
        The architecture (default: this process's, :func:`this_architecture`).

    Raises
    ------
    ConfinementError
        On an unknown architecture, when the kernel refuses the filter (or no new privileges), or when a socket
        can still be made afterwards.
    """
    name = name or this_architecture()
    code = filter_program(name)
    buffer = ctypes.create_string_buffer(code, len(code))
    program = _SockFprog(len(code) // INSTRUCTION.size, ctypes.cast(buffer, ctypes.c_void_p))
    no_new_privileges()
    libc = _libc()
    done = libc.syscall(ARCHITECTURES[name].seccomp_nr, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC,
                        ctypes.byref(program))
    if done < 0:
        raise ConfinementError(f"seccomp could not install the socket filter: {os.strerror(ctypes.get_errno())}")
    if done > 0:
        raise ConfinementError(f"seccomp could not install the socket filter: thread {done} could not take it")
    if _still_makes_sockets(libc):
        raise ConfinementError("the socket filter is installed but a socket can still be made")
