"""Run a command and measure its wall time and the peak resident memory of its whole process tree.

Linux only, no dependencies: a sampler thread reads ``/proc`` every :data:`SAMPLE_INTERVAL_S`
while the command runs. Each sample finds the process's descendants (from
``/proc/<pid>/task/<tid>/children`` when the kernel provides it, else by reading every
``/proc/<pid>/stat`` for its parent id) and adds up their ``VmRSS`` from ``/proc/<pid>/status``.
Sandboxed children (bubblewrap in its own pid namespace) are still ordinary descendants in the
host's ``/proc``, so they are counted.

Summing VmRSS counts a page shared by several processes (copy-on-write after a fork, shared
libraries) once per process: the tree figure is an upper bound of the memory the tree needs.
A process that starts and ends between two samples is not seen.

    from process_tree import measure
    result = measure([".venv/bin/attn-course", "grade", "hw1_scaled_attention", "solution.ipynb"])
    print(result.seconds, result.peak_tree_mb, result.peak_root_mb, result.peak_processes)

Run ``.venv/bin/python benchmarks/process_tree.py COMMAND [ARGS ...]`` to measure one command.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: Seconds between two samples of the process tree.
SAMPLE_INTERVAL_S = 0.010
#: Kibibytes per mebibyte (``VmRSS`` is in kB, which the kernel means as KiB).
KIB_PER_MB = 1024
PROC = Path("/proc")
#: The ``/proc/<pid>/status`` line of the resident set size.
RSS_FIELD = "VmRSS:"
#: Index of the parent pid among the fields of ``/proc/<pid>/stat`` that follow the command name.
STAT_PPID_INDEX = 1
#: Seconds to wait for a killed command to be reaped after a timeout.
KILL_GRACE_S = 5.0


@dataclass(frozen=True)
class Measured:
    """What one run of a command cost, and what it printed.

    Attributes
    ----------
    seconds : float
        Wall time from start to exit (or to the kill, after a timeout).
    peak_tree_mb : float
        Largest sum of the resident sets of the process and all its descendants, over the samples.
    peak_root_mb : float
        Largest resident set of the started process alone.
    peak_processes : int
        Most processes with a resident set seen in the tree in one sample (1: the command had no child
        when sampled; 0: it ended before the first sample).
    returncode : int
        The command's exit status (negative: killed by that signal).
    stdout : str
        Its standard output.
    stderr : str
        Its standard error.
    timed_out : bool
        Whether it was killed for running longer than the timeout.
    """

    seconds: float
    peak_tree_mb: float
    peak_root_mb: float
    peak_processes: int
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False


def _children_file_supported() -> bool:
    """Whether this kernel lists each task's children in ``/proc/<pid>/task/<tid>/children``."""
    me = os.getpid()
    return (PROC / str(me) / "task" / str(me) / "children").exists()


CHILDREN_FILE = _children_file_supported()


def rss_kib(pid: int) -> int:
    """Resident set of ``pid`` in KiB, from ``/proc/<pid>/status``; 0 when it is gone or has no memory (a zombie).

    Parameters
    ----------
    pid : int
        The process id.

    Returns
    -------
    int
        Its ``VmRSS`` in KiB.
    """
    try:
        text = (PROC / str(pid) / "status").read_text()
    except OSError:
        return 0
    for line in text.splitlines():
        if line.startswith(RSS_FIELD):
            return int(line.split()[1])
    return 0


def _children_from_task_files(pid: int) -> list[int]:
    """Children of every thread of ``pid``, read from its ``task/<tid>/children`` files."""
    found: list[int] = []
    try:
        tasks = list((PROC / str(pid) / "task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def parent_map() -> dict[int, list[int]]:
    """Every process's children, by parent pid, from the parent field of each ``/proc/<pid>/stat``.

    Returns
    -------
    dict of int to list of int
        Children pids keyed by their parent's pid.
    """
    children: dict[int, list[int]] = {}
    for entry in os.scandir(PROC):
        if not entry.name.isdigit():
            continue
        try:
            stat = (PROC / entry.name / "stat").read_text()
        except OSError:
            continue
        # The command name is in parentheses and may itself hold spaces or parentheses.
        ppid = int(stat[stat.rindex(")") + 1:].split()[STAT_PPID_INDEX])
        children.setdefault(ppid, []).append(int(entry.name))
    return children


def process_tree(root: int) -> list[int]:
    """``root`` and all its descendants that exist now, root first.

    Parameters
    ----------
    root : int
        The pid whose tree is wanted.

    Returns
    -------
    list of int
        The pids, breadth first.
    """
    by_parent = None if CHILDREN_FILE else parent_map()
    tree, queue = [], [root]
    while queue:
        pid = queue.pop(0)
        tree.append(pid)
        queue += _children_from_task_files(pid) if by_parent is None else by_parent.get(pid, [])
    return tree


class _Sampler(threading.Thread):
    """Samples the tree of one process until stopped, keeping the peaks."""

    def __init__(self, root: int, interval: float):
        """Sample the tree of ``root`` every ``interval`` seconds once started."""
        super().__init__(daemon=True)
        self.root, self.interval = root, interval
        self.peak_tree_kib = self.peak_root_kib = self.peak_processes = 0
        self._stop_event = threading.Event()

    def sample(self) -> None:
        """Take one sample and update the peaks."""
        tree = process_tree(self.root)
        sizes = [rss_kib(pid) for pid in tree]
        self.peak_tree_kib = max(self.peak_tree_kib, sum(sizes))
        self.peak_root_kib = max(self.peak_root_kib, sizes[0])
        self.peak_processes = max(self.peak_processes, sum(size > 0 for size in sizes))

    def run(self) -> None:
        """Sample until :meth:`stop` is called."""
        while not self._stop_event.is_set():
            self.sample()
            self._stop_event.wait(self.interval)

    def stop(self) -> None:
        """Stop sampling and wait for the thread to end."""
        self._stop_event.set()
        self.join()


def kill_tree(root: int) -> None:
    """Kill ``root`` and every descendant, the deepest first (a descendant may have left the process group).

    Parameters
    ----------
    root : int
        The pid at the top of the tree.
    """
    for pid in reversed(process_tree(root)):
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            continue


def measure(command: Sequence[str], *, cwd: Path | str | None = None, env: Mapping[str, str] | None = None,
            timeout: float | None = None, stdin: str | None = None, interval: float = SAMPLE_INTERVAL_S) -> Measured:
    """Run ``command`` to its end and measure its wall time and peak memory (whole tree and root alone).

    Parameters
    ----------
    command : sequence of str
        The program and its arguments (no shell).
    cwd : path, optional
        Working directory (default: this process's).
    env : mapping, optional
        Its whole environment (default: this process's).
    timeout : float, optional
        Seconds after which the tree is killed; the result then has ``timed_out`` set.
    stdin : str, optional
        Text for its standard input (default: none, it reads end of file).
    interval : float
        Seconds between samples.

    Returns
    -------
    Measured
        Seconds, peaks, exit status and output. A failing command is not an error: check ``returncode``.
    """
    started = time.perf_counter()
    process = subprocess.Popen(list(command), cwd=cwd, env=None if env is None else dict(env), text=True,
                               stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    sampler = _Sampler(process.pid, interval)
    sampler.sample()  # before the first wait, so that even a short command is seen once
    sampler.start()
    timed_out = False
    try:
        stdout, stderr = process.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_tree(process.pid)
        stdout, stderr = process.communicate(timeout=KILL_GRACE_S)
    seconds = time.perf_counter() - started
    sampler.stop()
    return Measured(seconds, sampler.peak_tree_kib / KIB_PER_MB, sampler.peak_root_kib / KIB_PER_MB,
                    sampler.peak_processes, process.returncode, stdout, stderr, timed_out)


def main(argv: list[str]) -> int:
    """Measure the command in ``argv`` and print the figures; its exit status is the command's."""
    if not argv:
        print(f"usage: {Path(sys.argv[0]).name} COMMAND [ARGS ...]", file=sys.stderr)
        return 2
    result = measure(argv)
    print(f"{result.seconds:.3f} s, peak tree {result.peak_tree_mb:.1f} MB over up to {result.peak_processes} "
          f"processes, peak root {result.peak_root_mb:.1f} MB, exit {result.returncode}")
    return result.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
