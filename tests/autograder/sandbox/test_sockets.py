"""No socket of any family, at every level: student code reaches no listener on the host, and grading still works.

Each attack runs against real listeners this test opens on the host (TCP, UDP, a pathname
Unix stream socket and a Unix datagram one, an abstract Unix socket), reachable by the
worker's uid but for the sandbox, and each must fail where the socket is made, with EPERM
(the seccomp filter, not Landlock or the network namespace, which refuse differently).
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import socket
import tempfile
import textwrap
from pathlib import Path

import pytest

from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.grade.api import grade_submission
from autograder.paths import SOLUTIONS_DIR
from autograder.sandbox import SandboxedSubmission, isolation, spares
from autograder.sandbox.isolation import Isolation

from tests.autograder.support import descendants

from .conftest import TEST_LIMITS

#: What each attack tries, in the order ``attempts`` returns them.
ATTEMPTS = ("tcp", "udp", "unix stream", "unix datagram", "abstract unix", "socketpair", "raw icmp", "ping",
            "netlink", "packet")
#: Mode of the folder and the sockets: any uid may reach them (only the sandbox may stop it).
OPEN_DIR_MODE, OPEN_SOCKET_MODE = 0o755, 0o777

ATTACKS = '''
import errno, os, socket, subprocess, time
import numpy as np

PING = bytes([8, 0, 247, 255, 0, 0, 0, 0])  # an ICMP echo request with its checksum

def _tried(make, use):
    """0 when it worked, the errno when the socket could not be made, minus the errno when its use failed."""
    try:
        made = make()
    except OSError as error:
        return error.errno
    try:
        use(made)
        return 0
    except OSError as error:
        return -error.errno
    finally:
        made.close()

def _inet(kind, protocol=0):
    return lambda: socket.socket(socket.AF_INET, kind, protocol)

def _unix(kind):
    return lambda: socket.socket(socket.AF_UNIX, kind)

def attempts():
    tries = [
        (_inet(socket.SOCK_STREAM), lambda s: s.connect(("127.0.0.1", {tcp}))),
        (_inet(socket.SOCK_DGRAM), lambda s: s.sendto(b"udp", ("127.0.0.1", {udp}))),
        (_unix(socket.SOCK_STREAM), lambda s: s.connect({stream!r})),
        (_unix(socket.SOCK_DGRAM), lambda s: s.sendto(b"unix", {datagram!r})),
        (_unix(socket.SOCK_STREAM), lambda s: s.connect("\\0" + {abstract!r})),
        (lambda: socket.socketpair()[0], lambda s: s.send(b"pair")),
        (_inet(socket.SOCK_RAW, socket.IPPROTO_ICMP), lambda s: s.sendto(PING, ("127.0.0.1", 0))),
        (_inet(socket.SOCK_DGRAM, socket.IPPROTO_ICMP), lambda s: s.sendto(PING, ("127.0.0.1", 0))),
        (lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0), lambda s: s.bind((0, 0))),
        (lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW), lambda s: None),
    ]
    return np.array([_tried(make, use) for make, use in tries])

def seccomp():
    """This process's seccomp mode and number of filters (-1 where the kernel does not say)."""
    fields = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
    return [int(fields.get("Seccomp", "-1")), int(fields.get("Seccomp_filters", "-1"))]

CHILD = "echo child > /dev/udp/127.0.0.1/{udp} && echo sent"

def leave_children():
    """The udp outcome of a forked child, then of an executed one (bash: -1 for an error but EPERM); a sleeper of each stays."""
    read, write = os.pipe()
    if os.fork() == 0:
        try:
            os.write(write, b"%d" % _tried(_inet(socket.SOCK_DGRAM), lambda s: s.sendto(b"forked", ("127.0.0.1", {udp}))))
            time.sleep(30)
        finally:
            os._exit(0)
    os.close(write)
    forked = int(os.read(read, 20))
    subprocess.Popen(["/bin/sleep", "30"])
    done = subprocess.run(["/bin/bash", "-c", CHILD], capture_output=True, text=True)
    return np.array([forked, 0 if "sent" in done.stdout else errno.EPERM if "Operation not permitted" in done.stderr else -1])

def scale(x):
    return 2 * x
'''


class Listeners:
    """Listeners on the host, each non-blocking, and a way to ask what reached them."""

    def __init__(self, folder: Path):
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.stream_path, self.datagram_path = str(folder / "stream.sock"), str(folder / "datagram.sock")
        self.stream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.stream.bind(self.stream_path)
        self.stream.listen()
        self.datagram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.datagram.bind(self.datagram_path)
        self.abstract_name = f"attn-test-{os.getpid()}-{secrets.token_hex(4)}"
        self.abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.abstract.bind("\0" + self.abstract_name)
        self.abstract.listen()
        for path in (self.stream_path, self.datagram_path):
            os.chmod(path, OPEN_SOCKET_MODE)
        for listener in self.all():
            listener.setblocking(False)

    def all(self) -> list[socket.socket]:
        return [self.tcp, self.udp, self.stream, self.datagram, self.abstract]

    def source(self) -> str:
        """The attacks, aimed at these listeners."""
        return ATTACKS.format(tcp=self.tcp.getsockname()[1], udp=self.udp.getsockname()[1], stream=self.stream_path,
                              datagram=self.datagram_path, abstract=self.abstract_name)

    def reached(self) -> list[str]:
        """The listeners something connected or sent to."""
        reached = []
        for name, listener, take in (("tcp", self.tcp, "accept"), ("udp", self.udp, "recv"), ("unix stream", self.stream, "accept"),
                                     ("unix datagram", self.datagram, "recv"), ("abstract unix", self.abstract, "accept")):
            try:
                getattr(listener, take)(*((100,) if take == "recv" else ()))
                reached.append(name)
            except BlockingIOError:
                pass
        return reached

    def close(self) -> None:
        for listener in self.all():
            listener.close()


@pytest.fixture
def listeners():
    folder = Path(tempfile.mkdtemp(prefix="attn-listeners-"))
    folder.chmod(OPEN_DIR_MODE)
    made = Listeners(folder)
    yield made
    made.close()
    shutil.rmtree(folder)


def _levels() -> list:
    return [Isolation.NONE, pytest.param(Isolation.BWRAP, marks=pytest.mark.skipif(not isolation.bwrap_works(),
                                                                                 reason="bwrap cannot run here"))]


@pytest.mark.parametrize("level", _levels())
def test_every_socket_family_is_refused_where_the_socket_is_made_and_no_listener_hears_anything(sandbox, listeners, level):
    sub = sandbox(listeners.source(), isolation=level)
    refused = dict(zip(ATTEMPTS, sub.call("attempts").tolist()))
    assert refused == dict.fromkeys(ATTEMPTS, errno.EPERM)
    assert sub.call("scale", 21) == 42, "the honest function of the same submission still answers"
    assert listeners.reached() == []


@pytest.mark.parametrize("level", _levels())
def test_the_filter_is_in_the_worker_and_in_every_process_it_forks_or_executes(sandbox, listeners, level):
    sub = sandbox(listeners.source(), isolation=level)
    mode, filters = sub.call("seccomp").tolist()
    assert mode == 2
    with open("/proc/self/status") as status:
        ours = dict(line.split(":", 1) for line in status if ":" in line)
    if filters >= 0 and "Seccomp_filters" in ours:
        assert filters == int(ours["Seccomp_filters"]) + 1, "one filter more than the grader's own"
    assert sub.call("leave_children").tolist() == [errno.EPERM, errno.EPERM]
    modes = _seccomp_modes_below(sub.worker_pid)
    assert any(name.endswith(" sleep") for name in modes) and len(modes) >= 3, modes  # the worker, its forked child, the executed sleep
    assert set(modes.values()) == {2}, modes
    assert listeners.reached() == []


def _seccomp_modes_below(pid: int) -> dict[str, int]:
    """``{"<pid> <command>": seccomp mode}`` of ``pid`` and every process below it but bwrap's, from the host's /proc."""
    modes = {}
    for below in [pid, *descendants(pid)]:
        with open(f"/proc/{below}/status") as status:
            fields = dict(line.split(":", 1) for line in status if ":" in line)
        if fields["Name"].strip() != "bwrap":
            modes[f"{below} {fields['Name'].strip()}"] = int(fields["Seccomp"])
    return modes


@pytest.mark.skipif(not (isolation.bwrap_works() and os.geteuid() == 0), reason="the fork server runs only under bwrap for a root grader")
def test_every_worker_the_fork_server_forks_has_the_filter(listeners):
    spares.keep_spares(True)
    try:
        for _ in range(2):  # the first worker, and one forked after a clean-up
            sub = SandboxedSubmission("student", listeners.source(), TEST_LIMITS, filename="student.py",
                                      isolation=Isolation.BWRAP)
            sub.start()
            assert spares._zygotes, "the worker should have come from a fork server"
            assert sub.call("seccomp").tolist()[0] == 2
            assert sub.call("attempts").tolist() == [errno.EPERM] * len(ATTEMPTS)
            sub.close()
    finally:
        spares.keep_spares(False)
    assert listeners.reached() == []


# --- graded end to end with --sandbox none: the attack gains nothing, the honest submission keeps its points ---

COURSE = load_course()
HW1 = COURSE.assignment("hw1_scaled_attention")
SOLUTION = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
REPORT = textwrap.dedent('''
    print("ATTEMPTS", attempts().tolist())
    print("CHILDREN", leave_children().tolist())
''')


def test_graded_without_the_sandbox_an_attacker_reaches_nothing_and_an_honest_solution_keeps_its_points(
        tmp_path, listeners, monkeypatch):
    monkeypatch.setenv(isolation.ISOLATION_ENV, "none")
    (tmp_path / "attacker").mkdir()
    (tmp_path / "honest").mkdir()
    attacker_file, honest_file = tmp_path / "attacker" / HW1.module, tmp_path / "honest" / HW1.module
    attacker_file.write_text(SOLUTION + listeners.source() + REPORT, encoding="utf-8")
    honest_file.write_text(SOLUTION, encoding="utf-8")
    attacker = grade_submission(COURSE, HW1.id, attacker_file)
    honest = grade_submission(COURSE, HW1.id, honest_file)
    assert attacker.isolation == honest.isolation == "none"
    output = attacker.student_output
    assert f"ATTEMPTS {[errno.EPERM] * len(ATTEMPTS)}" in output, output
    assert f"CHILDREN {[errno.EPERM, errno.EPERM]}" in output, output
    assert listeners.reached() == []
    assert attacker.raw_score == HW1.max_points, "the attack costs nothing but gains nothing either"
    assert honest.raw_score == honest.score == HW1.max_points
