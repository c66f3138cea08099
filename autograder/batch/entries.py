"""The submissions in a class folder: one file or folder per student, named after the student."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from autograder.grade.submitted import TIMES_CSV, SubmissionTime, TimeSource, file_time
from autograder.submission.locate import shown

#: Read size when hashing.
HASH_CHUNK_BYTES = 1 << 20
SUBMISSION_SUFFIXES = (".py", ".ipynb", ".zip")


@dataclass(frozen=True)
class Entry:
    """One student's submission in the class folder, and when it was handed in (with the source of that time)."""

    student: str
    path: Path
    submitted_at: dt.datetime | None
    submitted_at_source: TimeSource = TimeSource.NONE


def student_name(path: Path) -> str:
    """The student id a file or folder name stands for; undecodable bytes become ``\\xNN``."""
    name = path.name if path.is_dir() else path.name.split(".")[0] or path.name
    return shown(name)


def _time(student: str, path: Path, times: dict[str, dt.datetime] | None, file_times: bool) -> SubmissionTime:
    if times is not None:
        return SubmissionTime(times[student], TimeSource.CSV) if student in times else SubmissionTime()
    if file_times:
        return SubmissionTime(file_time(path), TimeSource.FILE_TIME)
    return SubmissionTime()


def list_entries(folder: Path, times: dict[str, dt.datetime] | None = None, file_times: bool = False) -> list[Entry]:
    """Every visible file or folder directly inside ``folder`` (but its ``submitted_at.csv``), sorted by name.

    Parameters
    ----------
    times : dict, optional
        Submission times by student (the class folder's ``submitted_at.csv``); they win.
    file_times : bool
        Otherwise take each entry's file time (which the student's archive can forge).
        Without either, entries have no submission time.
    """
    children = sorted(
        (p for p in folder.iterdir() if not p.name.startswith(".") and p.name != TIMES_CSV), key=lambda p: os.fsencode(p.name)
    )
    names = [student_name(p) for p in children]
    repeated = {name for name in names if names.count(name) > 1}
    entries = []
    for path, name in zip(children, names):
        student = shown(path.name) if name in repeated else name  # ada.py beside ada/: keep both apart
        when = _time(student, path, times, file_times)
        entries.append(Entry(student, path, when.at, when.source))
    return entries


def _hash_file(path: Path, digest) -> None:
    with path.open("rb") as handle:
        while chunk := handle.read(HASH_CHUNK_BYTES):
            digest.update(chunk)


def content_hash(path: Path) -> str:
    """SHA-256 of a file's bytes, or of a folder's relative names and bytes; names a reason when unreadable."""
    digest = hashlib.sha256()
    try:
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and not child.is_symlink():
                    name = os.fsencode(child.relative_to(path))
                    digest.update(len(name).to_bytes(8, "big") + name + child.stat().st_size.to_bytes(8, "big"))
                    _hash_file(child, digest)
        elif path.is_file():
            _hash_file(path, digest)
        else:
            return "unreadable:not a regular file"
    except OSError as error:
        return f"unreadable:{error.strerror}"
    return digest.hexdigest()
