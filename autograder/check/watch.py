"""``check --watch``: run the public checks again each time the student saves their file.

The loop is small and pure apart from what it is given: a function that runs the checks
once, one that shows a report, and the clock. Each run takes a fresh sandboxed worker, as
a single ``check`` does (nothing of one run's module survives into the next); what is kept
warm between runs is a spare worker that has already started Python and numpy (or, for a
root grader under bubblewrap, the fork server), the parsed release and the planned checks.

Saves are seen by polling the files' stamps (inode, size, modification time): no
dependency, and it sees an editor's write-to-a-temporary-then-rename too. A change must
hold for one settle interval before the checks run, so a file caught half-written is not
checked.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from autograder.file_stamp import file_stamp, stamps

#: Seconds between two looks at the watched files' stamps.
POLL_S = 0.025
#: Seconds a change must hold (no further change) before the checks run again.
SETTLE_S = 0.025
#: Suffixes of the files in a watched folder whose saves start a new run.
WATCHED_SUFFIXES = (".py", ".ipynb")


@dataclass(frozen=True)
class Clock:
    """What the loop waits with, and what tells it to stop; tests give fake ones."""

    sleep: Callable[[float], None] = time.sleep
    now: Callable[[], float] = time.monotonic
    stopped: Callable[[], bool] = lambda: False  # noqa: E731


class Stop:
    """Ctrl-C for the loop: a flag the SIGINT handler sets, then the usual KeyboardInterrupt.

    Python may deliver the KeyboardInterrupt where it is lost (inside a ``__del__``, which
    only prints it); the flag is not lost, and the loop looks at it on every poll.
    """

    def __init__(self) -> None:
        self.requested = False

    def __call__(self, signum, frame) -> None:
        self.requested = True
        raise KeyboardInterrupt


def watched_files(path: Path, checked: str = "") -> tuple[Path, ...]:
    """The files whose saves start a new run.

    Parameters
    ----------
    path : Path
        What the student asked to check: a file, or a folder (its top-level ``.py`` and
        ``.ipynb`` files are watched; a large tree below it is never scanned).
    checked : str
        The file the last run checked, watched too (it may lie deeper in the folder).
    """
    path = Path(path).resolve()
    files = [path] if not path.is_dir() else sorted(p for p in path.iterdir() if p.suffix in WATCHED_SUFFIXES)
    if checked and Path(checked).resolve() not in files:
        files.append(Path(checked).resolve())
    return tuple(files)


def wait_for_change(files: Callable[[], tuple[Path, ...]], seen: tuple, clock: Clock = Clock()) -> tuple:
    """Block until the watched files' stamps differ from ``seen`` and then hold for a settle interval.

    Returns
    -------
    tuple
        The new stamps (pass them as ``seen`` next time).

    Raises
    ------
    KeyboardInterrupt
        When ``clock.stopped()`` says so (Ctrl-C whose exception was lost on the way).
    """
    while True:
        if clock.stopped():
            raise KeyboardInterrupt
        clock.sleep(POLL_S)
        now = stamps(files())
        if now == seen:
            continue
        clock.sleep(SETTLE_S)
        settled = stamps(files())
        if settled == now:
            return settled


def watch(run_once: Callable[[], object], show: Callable[[object, int], None], files: Callable[[object], tuple[Path, ...]],
          clock: Clock = Clock(), runs: int | None = None) -> object:
    """Run, show, wait for a save, and again, until interrupted (or ``runs`` runs, for tests).

    Parameters
    ----------
    run_once : callable
        Runs the checks once; returns the report.
    show : callable
        Shows a report; also given the run's number (1 for the first).
    files : callable
        The files to watch, given the last report.
    runs : int, optional
        Stop after this many runs (default: never; Ctrl-C stops).

    Returns
    -------
    object
        The last report (when ``runs`` ends the loop).
    """
    number, report = 0, None
    while runs is None or number < runs:
        seen = dict(stamps(files(report)))  # taken before the run: a save during the run starts the next one
        report = run_once()
        number += 1
        show(report, number)
        if runs is not None and number >= runs:
            break
        watched = files(report)  # the run may name a file not watched yet: its stamp is taken now
        wait_for_change(lambda: files(report), tuple((str(p), seen.get(str(p), file_stamp(p))) for p in watched), clock)
    return report
