"""Workers ready ahead of need, so a batch never waits for Python and numpy to start.

In a batch run by a root grader under bwrap, workers come from a fork server
(:mod:`autograder.sandbox.zygote`): a fresh confined worker per submission in a few
milliseconds. Elsewhere a *spare* is kept: a fresh worker that has started (and imported
numpy) but holds no submission. Each submission takes its own worker and never shares
it. Both are off unless a batch turns them on: a single grading run would only waste
what it left behind; it can :func:`prestart` the one worker it will use.
"""

from __future__ import annotations

import atexit
import os

from autograder.config import Defaults
from autograder.sandbox import headstart
from autograder.sandbox.isolation import Isolation, choose_isolation
from autograder.sandbox.process import WorkerProcess
from autograder.sandbox.zygote import ForkedWorker, Zygote, ZygoteGone

_spares: dict[tuple[Defaults, Isolation], WorkerProcess] = {}
_zygotes: dict[Defaults, Zygote] = {}
_enabled = False


def keep_spares(enabled: bool = True) -> None:
    """Turn batch mode on or off: a fork server (or a spare after each take) readies the next worker.

    Off also stops the spares and fork servers there are.
    """
    global _enabled
    _enabled = enabled
    if not enabled:
        discard_spares()


def _forks_workers(isolation: Isolation) -> bool:
    """Whether workers come from a fork server: in batches, under bwrap, for a root grader."""
    return _enabled and isolation == Isolation.BWRAP and os.geteuid() == 0


def _zygote(limits: Defaults) -> Zygote:
    """The live fork server for these limits, started (or replaced) as needed."""
    zygote = _zygotes.get(limits)
    if zygote is None or not zygote.alive():
        if zygote is not None:
            zygote.close()
        zygote = _zygotes[limits] = Zygote(limits)
    return zygote


def _forked_worker(limits: Defaults) -> ForkedWorker:
    """A worker from the fork server; a server that stopped answering is replaced once.

    Raises
    ------
    GraderError
        When a fresh server cannot fork either.
    """
    try:
        return _zygote(limits).fork_worker()
    except ZygoteGone:
        return _zygote(limits).fork_worker()


def take_worker(limits: Defaults, isolation: Isolation) -> WorkerProcess | ForkedWorker:
    """A started worker for these limits: forked, or the spare if one is alive, or a new one.

    When spares are on (and no fork server serves), a replacement is started before
    returning, so it warms up while the caller grades.
    """
    if _forks_workers(isolation):
        return _forked_worker(limits)
    worker = _spares.pop((limits, isolation), None)
    if worker is None or not worker.alive():
        if worker is not None:
            worker.close_pipes()
        worker = WorkerProcess.spawn(limits, isolation)
    if _enabled:
        _spares[(limits, isolation)] = WorkerProcess.spawn(limits, isolation)
    return worker


def prestart(limits: Defaults, isolation: Isolation | None = None) -> None:
    """Start one worker now for the next :func:`take_worker`.

    A single grading run calls this first, so the worker's start-up overlaps the
    grader's own imports instead of following them; a worker given a head start
    (:mod:`.headstart`) with these very limits is taken instead of a new one.
    """
    key = (limits, isolation or choose_isolation(limits))
    if key not in _spares:
        _spares[key] = headstart.claim(*key) or WorkerProcess.spawn(*key)


def discard_spares() -> None:
    """Kill every spare and fork server (at exit, or when spares are turned off)."""
    while _spares:
        _, worker = _spares.popitem()
        worker.kill()
        worker.close_pipes()
    while _zygotes:
        _, zygote = _zygotes.popitem()
        zygote.close()


atexit.register(discard_spares)
