"""What the benchmarks print about the machine: its description, and how fast it is right now.

A shared virtual machine does not run at one speed: on this project's 2-core VM the same
batch took 7.7 CPU-seconds one hour and 12 the next, with nothing else of ours running and
no steal time reported. :func:`speeds` times two fixed workloads, the Python interpreter with
small numpy operations (as the grader computes) and process work (forks, and round trips
through pipes between two processes, as the sandbox does), so that a slow figure can be told
apart from a regression: compare two runs of a benchmark only when their speeds are close.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable

#: Times each workload runs; its median run is the machine's speed while the figures are measured.
SPEED_REPEATS = 7
#: Iterations of the interpreter part of the compute workload.
PYTHON_STEPS = 300_000
#: Side and count of the small matrix products of the compute workload.
MATRIX_SIDE = 64
MATRIX_STEPS = 300
#: Processes forked (each exits at once) and pipe round trips of the process workload.
FORKS = 20
ROUND_TRIPS = 300


def describe() -> str:
    """Platform, cores, Python and numpy versions."""
    import numpy

    return f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {numpy.__version__}"


def compute_workload() -> float:
    """Interpreter steps and small matrix products (the result only keeps them from being skipped)."""
    import numpy as np

    total = 0
    for step in range(PYTHON_STEPS):
        total += step * step % 7
    matrix = np.random.default_rng(0).standard_normal((MATRIX_SIDE, MATRIX_SIDE))
    for _ in range(MATRIX_STEPS):
        matrix = np.tanh(matrix @ matrix.T / MATRIX_SIDE)
    return total + float(matrix.sum())


def _echo_child(requests: int, replies: int, parents_ends: tuple[int, int]) -> None:
    """In a forked child: answer each byte read with one byte, until the parent closes its end."""
    for fd in parents_ends:
        os.close(fd)
    while os.read(requests, 1):
        os.write(replies, b"y")
    os._exit(0)


def process_workload() -> None:
    """Fork processes that exit at once, then send bytes to a child that echoes each one."""
    for _ in range(FORKS):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    request_read, request_write = os.pipe()
    reply_read, reply_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        _echo_child(request_read, reply_write, (request_write, reply_read))
    for fd in (request_read, reply_write):
        os.close(fd)
    for _ in range(ROUND_TRIPS):
        os.write(request_write, b"x")
        os.read(reply_read, 1)
    os.close(request_write)
    os.waitpid(pid, 0)
    os.close(reply_read)


def speed_ms(work: Callable[[], object], repeats: int = SPEED_REPEATS,
             clock: Callable[[], float] = time.perf_counter) -> float:
    """Milliseconds of the median of ``repeats`` runs of ``work`` (lower is faster)."""
    times = []
    for _ in range(repeats):
        started = clock()
        work()
        times.append(clock() - started)
    return 1000 * statistics.median(times)


def speeds() -> dict[str, float]:
    """Milliseconds of each fixed workload on this machine now, by name."""
    return {"compute": speed_ms(compute_workload), "processes": speed_ms(process_workload)}


def speed_line(before: dict[str, float], after: dict[str, float]) -> str:
    """The line that says how fast the machine was while the figures were measured."""
    each = "; ".join(f"{name} {before[name]:.1f} ms before and {after[name]:.1f} ms after" for name in before)
    return (f"machine speed (fixed workloads, median of {SPEED_REPEATS} runs; lower is faster; compare runs of "
            f"this script only at similar speeds): {each}")
