"""Test doubles and process helpers shared by the autograder tests."""

from __future__ import annotations

import inspect
import os
import queue
import subprocess
import threading
import time

import numpy as np

from autograder.sandbox.call import CallOutcome
from autograder.errors import MissingFunction, NotImplementedYet, StudentException
from autograder.inputs import materialize
from autograder.sandbox.worker import input_snapshots, modified_inputs, returned_kinds


class InProcessSubmission:
    """A submission made of trusted in-process callables (mutants, the reference), for test-power checks.

    It converts results like the sandboxed worker does, so hidden tests see the same
    values; it must never be used for student code.
    """

    def __init__(self, functions: dict):
        self._functions = functions

    def call(self, function: str, *args, **kwargs):
        return self.call_observed(function, *args, **kwargs).result

    def call_observed(self, function: str, *args, **kwargs) -> CallOutcome:
        """The call's result and what else it did, observed the way the worker observes it."""
        implementation = self._functions.get(function)
        if implementation is None:
            raise MissingFunction(f"no function {function!r}")
        args, kwargs = materialize(args), materialize(kwargs)
        before = input_snapshots(args, kwargs)
        try:
            with np.errstate(all="ignore"):
                result = implementation(*args, **kwargs)
        except NotImplementedError as error:
            raise NotImplementedYet(str(error)) from None
        except Exception as error:
            raise StudentException(f"{type(error).__name__}: {error}") from None
        returned = returned_kinds(result)
        converted = tuple(np.asarray(part) for part in result) if isinstance(result, tuple) else np.asarray(result)
        return CallOutcome(converted, tuple(modified_inputs(before, args, kwargs)), returned["container"], tuple(returned["parts"]))

    def call_with_standins(self, function: str, standins: dict, args: tuple, kwargs: dict) -> CallOutcome:
        """The call with its upstream functions replaced: passed as the keyword arguments of the same
        names when the implementation takes them (as the reference does), else the call as it is."""
        implementation = self._functions.get(function)
        accepted = set(inspect.signature(implementation).parameters) if implementation is not None else set()
        return self.call_observed(function, *args, **kwargs, **{n: f for n, f in standins.items() if n in accepted})

    def __getattr__(self, function: str):
        return lambda *args, **kwargs: self.call(function, *args, **kwargs)


class OutputLines:
    """The lines a running command prints, read in a thread so a test can wait for one with a deadline."""

    #: Seconds a command may take to print the line a test waits for (generous: the machine may be busy).
    DEADLINE_S = 60

    def __init__(self, process: subprocess.Popen):
        self._lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [self._lines.put(line) for line in process.stdout], daemon=True).start()

    def until(self, wanted) -> list[str]:
        """Lines up to and including the first for which ``wanted(line)`` holds.

        Raises
        ------
        queue.Empty
            When no such line comes before the deadline.
        """
        got, deadline = [], time.monotonic() + self.DEADLINE_S
        while not got or not wanted(got[-1]):
            got.append(self._lines.get(timeout=max(deadline - time.monotonic(), 0.1)))
        return got

    def rest(self, process: subprocess.Popen) -> str:
        """Everything printed after the lines read so far, once ``process`` has ended."""
        process.wait(self.DEADLINE_S)
        time.sleep(0.1)  # the reading thread takes the last lines
        lines = []
        while not self._lines.empty():
            lines.append(self._lines.get())
        return "".join(lines)


def parent_pids() -> dict[int, int]:
    """The parent pid of every process alive now, from /proc."""
    parents = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                parents[int(entry)] = int(stat.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return parents


def descendants(pid: int, parents: dict[int, int] | None = None) -> list[int]:
    """Every living descendant of ``pid`` (children first), from ``parents`` or /proc now."""
    parents = parent_pids() if parents is None else parents
    found, frontier = [], [pid]
    while frontier:
        frontier = [child for child, parent in parents.items() if parent in frontier]
        found += frontier
    return found


def course_beside(folder, text: str | bytes | None = None, *, copy_suite: bool = False):
    """A course directory in ``folder``: its course.yml (this course's, or ``text``), this course's masters and
    hidden suites (linked, or the suites copied with ``copy_suite``) and a copy of its releases; the course file's path.
    """
    import shutil
    from pathlib import Path

    from autograder.config import DEFAULT_COURSE_FILE

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    course_file = folder / DEFAULT_COURSE_FILE.name
    data = DEFAULT_COURSE_FILE.read_bytes() if text is None else text
    course_file.write_bytes(data) if isinstance(data, bytes) else course_file.write_text(data, encoding="utf-8")
    link_course_parts(folder, copy_suite=copy_suite)
    return course_file


def link_course_parts(folder, *, copy_suite: bool = False) -> None:
    """Make a course.yml written into ``folder`` this course: its masters and hidden suites linked (the suites copied
    with ``copy_suite``) and a copy of its releases."""
    import shutil
    from pathlib import Path

    from autograder.layout import CourseDirectory

    folder, ours = Path(folder), CourseDirectory.of()
    if (folder / "solutions").exists():  # linked already
        return
    (folder / "solutions").symlink_to(ours.solutions, target_is_directory=True)
    if copy_suite:
        shutil.copytree(ours.hidden_tests, folder / "hidden_tests", ignore=shutil.ignore_patterns("__pycache__"))
    else:
        (folder / "hidden_tests").symlink_to(ours.hidden_tests, target_is_directory=True)
    shutil.copytree(ours.releases, folder / "assignments", ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    secret = ours.course_file.parent / ".course_secret"
    if secret.is_file():  # the same course grades alike: its secret too
        shutil.copy(secret, folder / ".course_secret")
