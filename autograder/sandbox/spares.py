"""Spare workers, started ahead of need so a batch never waits for Python and numpy to start.

A spare is a fresh worker that has started (and imported numpy) but holds no submission.
Each submission takes its own spare and never shares it; under bwrap every worker has its
own PID namespace and /tmp, so a running submission cannot see or touch the spare that
will serve the next one. Spares are off unless a batch turns them on: a single grading
run would only waste the one it left behind.
"""

from __future__ import annotations

import atexit

from autograder.config import Defaults
from autograder.sandbox.launcher import WorkerProcess, detect_isolation

_spares: dict[tuple[Defaults, str], WorkerProcess] = {}
_enabled = False


def keep_spares(enabled: bool = True) -> None:
    """Turn starting a spare after each take on or off (off also stops the spares there are)."""
    global _enabled
    _enabled = enabled
    if not enabled:
        discard_spares()


def take_worker(limits: Defaults, isolation: str) -> WorkerProcess:
    """A started worker for these limits: the spare if one is alive, else a new one.

    When spares are on, a replacement is started before returning, so it warms up while
    the caller grades.
    """
    worker = _spares.pop((limits, isolation), None)
    if worker is None or worker.popen.poll() is not None:
        if worker is not None:
            worker.close_pipes()
        worker = WorkerProcess.spawn(limits, isolation)
    if _enabled:
        _spares[(limits, isolation)] = WorkerProcess.spawn(limits, isolation)
    return worker


def prestart(limits: Defaults, isolation: str | None = None) -> None:
    """Start one worker now for the next :func:`take_worker`.

    A single grading run calls this first, so the worker's start-up overlaps the
    grader's own imports instead of following them.
    """
    key = (limits, isolation or detect_isolation())
    if key not in _spares:
        _spares[key] = WorkerProcess.spawn(*key)


def discard_spares() -> None:
    """Kill every spare (at exit, or when spares are turned off)."""
    while _spares:
        _, worker = _spares.popitem()
        worker.kill()
        worker.close_pipes()


atexit.register(discard_spares)
