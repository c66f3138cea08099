"""The socket filter itself: its program for each architecture, what it refuses on this kernel, and failing closed.

The syscall numbers, AUDIT_ARCH values and BPF opcodes below are literals from the kernel's
headers and syscall tables, not read from the code under test.
"""

from __future__ import annotations

import errno
import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.errors import GraderError
from autograder.sandbox import host, isolation, seccomp
from autograder.sandbox.isolation import Isolation
from autograder.sandbox.landlock import ConfinementError

from .conftest import TEST_LIMITS, make_submission

pytestmark = pytest.mark.skipif(seccomp.problem() is not None, reason=f"no socket filter here: {seccomp.problem()}")

#: linux/audit.h: AUDIT_ARCH_* = EM_* | __AUDIT_ARCH_64BIT (for 64-bit) | __AUDIT_ARCH_LE.
ARCH_64, ARCH_LE = 0x80000000, 0x40000000
AUDIT_ARCH = {"x86_64": 62 | ARCH_64 | ARCH_LE, "aarch64": 183 | ARCH_64 | ARCH_LE, "i386": 3 | ARCH_LE, "arm": 40 | ARCH_LE}
#: Calls that must be refused, and a few every worker needs, by architecture (syscall_64.tbl, asm-generic/unistd.h,
#: syscall_32.tbl).
REFUSED = {
    "x86_64": {"socket": 41, "socketpair": 53, "io_uring_setup": 425, "pidfd_getfd": 438},
    "aarch64": {"socket": 198, "socketpair": 199, "io_uring_setup": 425, "pidfd_getfd": 438},
    "i386": {"socketcall": 102, "socket": 359, "socketpair": 360, "io_uring_setup": 425, "pidfd_getfd": 438},
}
ALLOWED = {
    "x86_64": {"read": 0, "write": 1, "mmap": 9, "pipe": 22, "getpid": 39, "connect": 42, "sendto": 44, "clone": 56,
               "execve": 59, "exit_group": 231, "openat": 257, "pipe2": 293},
    "aarch64": {"openat": 56, "pipe2": 59, "read": 63, "write": 64, "getpid": 172, "connect": 203, "clone": 220, "execve": 221},
    "i386": {"read": 3, "write": 4, "getpid": 20, "execve": 11, "connect": 362},
}
#: Another architecture a process of each may call into (int 0x80 on x86_64, AArch32 on aarch64, x86_64 on i386).
FOREIGN = {"x86_64": "i386", "aarch64": "arm", "i386": "x86_64"}
#: Above every call number of these architectures (the highest, 4xx, are shared).
FIRST_UNUSED_NR = 600
#: linux/seccomp.h return actions, and linux/bpf_common.h opcodes.
RET_ALLOW, RET_ERRNO = 0x7FFF0000, 0x00050000
LD_W_ABS, JEQ_K, JGE_K, RET_K = 0x00 | 0x00 | 0x20, 0x05 | 0x10 | 0x00, 0x05 | 0x30 | 0x00, 0x06 | 0x00
#: The x32 ABI's bit in a call's number (arch/x86/include/uapi/asm/unistd.h).
X32_BIT = 0x40000000
#: The ``seccomp`` call of this machine, for a filter that pretends the kernel has none.
SECCOMP_NR = {"x86_64": 317, "aarch64": 277}


def run_filter(program: bytes, arch: int, number: int) -> int:
    """What the classic BPF ``program`` returns for a call ``number`` of ``arch`` (a small interpreter)."""
    data = struct.pack("=iI", number, arch) + bytes(8 + 6 * 8)  # struct seccomp_data: nr, arch, ip, args
    instructions = [struct.unpack_from("=HBBI", program, at) for at in range(0, len(program), 8)]
    counter = 0
    while True:
        code, jump_true, jump_false, constant = instructions[counter]
        if code == LD_W_ABS:
            accumulator = struct.unpack_from("=I", data, constant)[0]
            counter += 1
        elif code in (JEQ_K, JGE_K):
            taken = accumulator == constant if code == JEQ_K else accumulator >= constant
            counter += 1 + (jump_true if taken else jump_false)
        elif code == RET_K:
            return constant
        else:
            raise AssertionError(f"unexpected opcode {code:#x} at {counter}")


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_each_architectures_program_refuses_its_socket_calls_and_allows_the_rest(name):
    program = seccomp.filter_program(name)
    for call, number in REFUSED[name].items():
        assert run_filter(program, AUDIT_ARCH[name], number) == RET_ERRNO | errno.EPERM, call
    for call, number in ALLOWED[name].items():
        assert run_filter(program, AUDIT_ARCH[name], number) == RET_ALLOW, call


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_every_call_of_another_architecture_is_refused(name):
    program = seccomp.filter_program(name)
    for number in range(FIRST_UNUSED_NR):
        assert run_filter(program, AUDIT_ARCH[FOREIGN[name]], number) == RET_ERRNO | errno.EPERM, number


def test_every_x32_call_is_refused_on_x86_64():
    program = seccomp.filter_program("x86_64")
    for number in (*ALLOWED["x86_64"].values(), *REFUSED["x86_64"].values()):
        assert run_filter(program, AUDIT_ARCH["x86_64"], X32_BIT | number) == RET_ERRNO | errno.EPERM, number


def test_an_unknown_architecture_has_no_program():
    with pytest.raises(ConfinementError, match="riscv64"):
        seccomp.filter_program("riscv64")
    with pytest.raises(ConfinementError, match="riscv64"):
        seccomp.deny_sockets("riscv64")


# --- on this kernel, in a throwaway process ------------------------------------------------------------------------

PROBE = r'''
import ctypes, json, os, socket, sys, threading
from autograder.sandbox import landlock, seccomp
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
numbers = json.loads(sys.argv[1])

def call(number, *args):
    ctypes.set_errno(0)
    done = libc.syscall(number, *args)
    if done >= 0 and number != numbers["getpid"]:
        os.close(done)
    return 0 if done >= 0 else ctypes.get_errno()

def in_thread():
    try:
        socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).close()
        return 0
    except OSError as error:
        return error.errno

def checks(thread_result):
    pidfd, (read, _) = os.pidfd_open(os.getpid()), os.pipe()
    found = {"io_uring_setup": call(numbers["io_uring_setup"], 1, ctypes.create_string_buffer(120)),
             "pidfd_getfd": call(numbers["pidfd_getfd"], pidfd, read, 0), "thread": thread_result}
    if "x32_socket" in numbers:
        found["x32_socket"] = call(numbers["x32_socket"], socket.AF_UNIX, socket.SOCK_DGRAM, 0)
    return found

go, done, result = threading.Event(), threading.Event(), []
def waiting():
    go.wait()
    result.append(in_thread())
    done.set()
threading.Thread(target=waiting, daemon=True).start()
before = checks(in_thread())
landlock.no_new_privileges()
seccomp.deny_sockets()
go.set()
done.wait()
print(json.dumps({"before": before, "after": checks(result[0])}))
'''


def _probe(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=30)


def test_on_this_kernel_io_uring_another_processs_sockets_x32_and_threads_started_before_are_refused():
    name = seccomp.this_architecture()
    numbers = {**REFUSED[name], "getpid": ALLOWED[name]["getpid"]}
    if name == "x86_64":
        numbers["x32_socket"] = X32_BIT | REFUSED[name]["socket"]
    done = _probe(PROBE, json.dumps(numbers))
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert set(seen["after"].values()) == {errno.EPERM}, seen
    assert seen["before"]["pidfd_getfd"] == 0 and seen["before"]["thread"] == 0, f"the controls must work: {seen}"
    assert seen["before"].get("x32_socket") != errno.EPERM, seen  # ENOSYS where the kernel has no x32


INT_80 = r'''
import ctypes, mmap, os, sys
from autograder.sandbox import landlock, seccomp
code = bytes([0xB8, 20, 0, 0, 0, 0xCD, 0x80, 0xC3])  # mov eax, 20 (i386 getpid); int 0x80; ret
page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(code)
getpid = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
if sys.argv[1] == "filtered":
    landlock.no_new_privileges()
    seccomp.deny_sockets()
print(getpid() == os.getpid(), getpid())
'''


@pytest.mark.skipif(seccomp.this_architecture() != "x86_64", reason="int 0x80 is x86's")
def test_the_32_bit_calls_of_an_x86_64_process_are_all_refused():
    control = _probe(INT_80, "plain")
    if control.returncode != 0:
        pytest.skip(f"this kernel runs no 32-bit calls (int 0x80 ended with {control.returncode})")
    assert control.stdout.split()[0] == "True", control.stdout
    assert _probe(INT_80, "filtered").stdout.split() == ["False", str(-errno.EPERM)]


NO_SECCOMP = r'''
import ctypes, struct, sys
from autograder.sandbox import landlock, seccomp
number, enosys = int(sys.argv[1]), 38
program = b"".join(struct.pack("=HBBI", *row) for row in
                   [(0x20, 0, 0, 0), (0x15, 0, 1, number), (0x06, 0, 0, 0x00050000 | enosys), (0x06, 0, 0, 0x7FFF0000)])
buffer = ctypes.create_string_buffer(program, len(program))
class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
landlock.no_new_privileges()
libc = ctypes.CDLL(None, use_errno=True)
assert libc.prctl(22, 2, ctypes.byref(Program(4, ctypes.cast(buffer, ctypes.c_void_p))), 0, 0) == 0  # PR_SET_SECCOMP
print(seccomp.problem())
try:
    seccomp.deny_sockets()
except seccomp.ConfinementError as error:
    print(error)
'''


@pytest.mark.skipif(seccomp.this_architecture() not in SECCOMP_NR, reason="no seccomp number for this machine here")
def test_where_the_kernel_refuses_seccomp_the_check_and_the_worker_say_why():
    done = _probe(NO_SECCOMP, str(SECCOMP_NR[seccomp.this_architecture()]))
    problem, refused = done.stdout.splitlines()
    assert "no seccomp filter" in problem and "Function not implemented" in problem
    assert "could not install the socket filter: Function not implemented" in refused


# --- failing closed: the grader refuses, and so does a worker without a filter --------------------------------------


@pytest.fixture
def fresh_choice():
    isolation._checked.cache_clear()
    yield
    isolation._checked.cache_clear()


@pytest.mark.parametrize("level", ["none", "bwrap"])
def test_on_an_unknown_architecture_the_grader_refuses_to_grade(monkeypatch, fresh_choice, level):
    monkeypatch.setenv(isolation.ISOLATION_ENV, level)
    monkeypatch.setattr(isolation, "bwrap_problem", lambda: None)
    monkeypatch.setattr(seccomp, "this_architecture", lambda: "riscv64")
    with pytest.raises(GraderError, match="refusing to grade.*sockets.*'riscv64'"):
        isolation.choose_isolation(TEST_LIMITS)


@pytest.fixture
def worker_without_filter():
    """The worker's copy of seccomp.py knows no architecture (as on a machine it was not written for)."""
    copy = Path(host.private_dir()) / "worker" / "seccomp.py"
    original = copy.read_text()
    copy.write_text(original + "\nARCHITECTURES.clear()\n")
    yield
    copy.write_text(original)


@pytest.mark.parametrize("level", [Isolation.NONE, pytest.param(Isolation.BWRAP, marks=pytest.mark.skipif(
    not isolation.bwrap_works(), reason="bwrap cannot run here"))])
def test_a_worker_that_cannot_filter_its_sockets_never_serves_and_the_grader_says_why(worker_without_filter, level):
    submission = make_submission("def f():\n    return 1\n", isolation=level)
    try:
        with pytest.raises(GraderError, match="did not start(.|\n)*no socket filter for the"):
            submission.start()
    finally:
        submission.close()
