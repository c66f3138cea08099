"""A sandboxed worker started before the grader has read course.yml, for one ``grade`` or ``check``.

A single grading run spends its first 0.2 s importing (click, pydantic, numpy) and
validating course.yml, and a worker needs about 0.15 s to start under bwrap (Python, numpy,
the submission). A worker's limits come from course.yml, so it could only start after that.
The head start starts it first, with the limits the previous run used (a small JSON file in
the user's cache folder), and the run takes it only when the limits it then reads from
course.yml, and the isolation it then chooses, are the same; otherwise the worker is killed
unused and the file rewritten. A worker reads no student code before it is taken, so a stale
or edited file costs at most one discarded worker, never a worker with other limits.

Only the ``bwrap`` level gets a head start; ``grade`` of a class folder discards it (its
grading processes fork their own workers). ``ATTN_NO_HEAD_START`` (any value) turns it off.
"""

from __future__ import annotations

import atexit
import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.errors import GraderError
from autograder.sandbox.isolation import ISOLATION_ENV, Isolation, start_bwrap_self_test
from autograder.sandbox.process import WorkerProcess

if TYPE_CHECKING:
    from autograder.config import Defaults

#: Environment variable that turns the head start off.
DISABLE_ENV = "ATTN_NO_HEAD_START"
#: Subcommands that grade one submission with one worker.
SINGLE_WORKER_COMMANDS = frozenset({"grade", "check"})
#: Options that only show help (no worker is needed).
HELP_OPTIONS = frozenset({"--help", "-h"})
#: Options of the top-level command that take a value (skipped to find the subcommand).
VALUED_MAIN_OPTIONS = frozenset({"--course"})
#: The launch plan's file name in the cache folder.
PLAN_NAME = "worker-launch.json"


@dataclasses.dataclass(frozen=True)
class LaunchLimits:
    """The course.yml ``defaults`` a worker is started with (all :meth:`WorkerProcess.spawn` reads)."""

    memory_mb: int
    max_processes: int
    cpu_time_s: int
    max_file_size_mb: int
    tmp_max_files: int
    sandbox: str

    @classmethod
    def of(cls, limits: Defaults) -> LaunchLimits:
        """The launch fields of a course's ``defaults``."""
        return cls(**{field.name: getattr(limits, field.name) for field in dataclasses.fields(cls)})


_early: tuple[LaunchLimits, WorkerProcess] | None = None


def plan_file() -> Path:
    """Where the last launch plan is kept: ``$XDG_CACHE_HOME/attn-course`` (default ``~/.cache``)."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "attn-course" / PLAN_NAME


def subcommand(argv: list[str]) -> str | None:
    """The subcommand of an ``attn-course`` argument list (after the top-level options), or None."""
    words = iter(argv)
    for word in words:
        if word in VALUED_MAIN_OPTIONS:
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def read_plan() -> LaunchLimits | None:
    """The limits the previous run started its worker with, or None (no file, or not a plan)."""
    try:
        return LaunchLimits(**json.loads(plan_file().read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


def write_plan(plan: LaunchLimits) -> None:
    """Keep ``plan`` for the next run (atomically; a cache folder that cannot be written is left alone)."""
    path = plan_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{PLAN_NAME}.{os.getpid()}")
        partial.write_text(json.dumps(dataclasses.asdict(plan)), encoding="utf-8")
        os.replace(partial, path)
    except OSError:
        pass


def start_early(argv: list[str]) -> None:
    """Start a worker now with the last plan's limits, when ``argv`` grades or checks one submission."""
    global _early
    if _early is not None or os.environ.get(DISABLE_ENV) or HELP_OPTIONS.intersection(argv):
        return
    if subcommand(argv) not in SINGLE_WORKER_COMMANDS:
        return
    plan = read_plan()
    if plan is None or os.environ.get(ISOLATION_ENV, plan.sandbox) != Isolation.BWRAP or not sys.platform.startswith("linux"):
        return
    try:
        _early = (plan, WorkerProcess.spawn(plan, Isolation.BWRAP))
    except (GraderError, OSError, ValueError, ImportError):  # ImportError: no resource module (check runs portably)
        return
    atexit.register(discard)
    start_bwrap_self_test()  # its outcome decides whether the run may use bwrap at all


def claim(limits: Defaults, isolation: Isolation) -> WorkerProcess | None:
    """The early worker when it was started with ``limits`` at ``isolation``, else None (it is then killed).

    Either way the plan of this run is kept for the next one.
    """
    global _early
    early, _early = _early, None
    plan = LaunchLimits.of(limits)
    if isolation == Isolation.BWRAP and (early is None or early[0] != plan):
        write_plan(plan)
    if early is None:
        return None
    started_with, worker = early
    if started_with == plan and isolation == Isolation.BWRAP and worker.alive():
        return worker
    _kill(worker)
    return None


def discard() -> None:
    """Kill the early worker, if one is waiting (a batch, or a run that did not take it)."""
    global _early
    early, _early = _early, None
    if early is not None:
        _kill(early[1])


def _kill(worker: WorkerProcess) -> None:
    worker.kill()
    worker.close_pipes()
