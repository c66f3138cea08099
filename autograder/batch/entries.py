"""The submissions in a class folder: one file or folder per student, named after the student."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from autograder.grade.submitted import TIMES_CSV, SubmissionTime, TimeSource, file_time
from autograder.submission.locate import shown

#: Read size when hashing.
HASH_CHUNK_BYTES = 1 << 20
#: The extensions a student id leaves out (``jean.luc.py`` is student ``jean.luc``); folders keep their whole name.
SUBMISSION_SUFFIXES = (".py", ".ipynb", ".zip")
#: What tells apart entries whose whole names still show the same (undecodable bytes beside their escapes).
REPEAT_MARK = "~"


@dataclass(frozen=True)
class Entry:
    """One student's submission in the class folder, and when it was handed in (with the source of that time)."""

    student: str
    path: Path
    submitted_at: dt.datetime | None
    submitted_at_source: TimeSource = TimeSource.NONE


def student_name(path: Path) -> str:
    """The student id a file or folder name stands for; undecodable bytes become ``\\xNN``.

    A folder keeps its whole name; a file loses one known extension (:data:`SUBMISSION_SUFFIXES`)
    and keeps every other dot: ``jean.luc.py`` is ``jean.luc``, ``notes.txt`` stays ``notes.txt``.
    """
    name = path.name
    if not path.is_dir():
        suffix = next((s for s in SUBMISSION_SUFFIXES if name.endswith(s) and len(name) > len(s)), "")
        name = name[: len(name) - len(suffix)]
    return shown(name)


def _unique_ids(children: list[Path]) -> list[str]:
    """One student id per entry, never two alike.

    An id two entries share (``ada.py`` beside ``ada/``) becomes each one's whole name, until no
    id is shared; whole names that still show alike (a byte beside its escape) get ``~2``, ``~3``.
    """
    ids = [student_name(p) for p in children]
    while True:
        counts = Counter(ids)
        whole = [shown(p.name) if counts[i] > 1 else i for p, i in zip(children, ids)]
        if whole == ids:
            break
        ids = whole
    taken = set(ids)  # a mark never takes another entry's id
    unique, kept = [], set()
    for student in ids:
        candidate, number = student, 1
        while candidate in kept or (candidate != student and candidate in taken):
            number += 1
            candidate = f"{student}{REPEAT_MARK}{number}"
        kept.add(candidate)
        taken.add(candidate)
        unique.append(candidate)
    return unique


def _time(student: str, path: Path, times: dict[str, dt.datetime] | None, file_times: bool) -> SubmissionTime:
    if times is not None:  # a class folder with submitted_at.csv: an entry it has no row for is said so, not on time
        return SubmissionTime(times[student], TimeSource.CSV) if student in times else SubmissionTime(None, TimeSource.UNMATCHED)
    if file_times:
        return SubmissionTime(file_time(path), TimeSource.FILE_TIME)
    return SubmissionTime()


def list_entries(folder: Path, times: dict[str, dt.datetime] | None = None, file_times: bool = False) -> list[Entry]:
    """Every visible file or folder directly inside ``folder`` (but its ``submitted_at.csv``), sorted by name.

    Parameters
    ----------
    times : dict, optional
        Submission times by student (the class folder's ``submitted_at.csv``); they win, and an
        entry without a row in them has the source :attr:`TimeSource.UNMATCHED` (no time).
    file_times : bool
        Otherwise take each entry's file time (which the student's archive can forge).
        Without either, entries have no submission time.

    Returns
    -------
    list of Entry
        One per entry, each with a student id of its own (see :func:`student_name`).
    """
    children = sorted(
        (p for p in folder.iterdir() if not p.name.startswith(".") and p.name != TIMES_CSV), key=lambda p: os.fsencode(p.name)
    )
    entries = []
    for path, student in zip(children, _unique_ids(children)):
        when = _time(student, path, times, file_times)
        entries.append(Entry(student, path, when.at, when.source))
    return entries


def unknown_students(entries: list[Entry], times: dict[str, dt.datetime] | None) -> list[str]:
    """The students of ``submitted_at.csv`` that no entry is named after (a misnamed file, most likely), sorted."""
    return sorted(set(times or ()) - {entry.student for entry in entries})


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
