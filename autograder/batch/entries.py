"""The submissions in a class folder: one file or folder per student, named after the student."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from autograder.submission.locate import shown

#: Read size when hashing.
HASH_CHUNK_BYTES = 1 << 20
SUBMISSION_SUFFIXES = (".py", ".ipynb", ".zip")


@dataclass(frozen=True)
class Entry:
    """One student's submission in the class folder."""

    student: str
    path: Path
    submitted_at: dt.datetime | None


def student_name(path: Path) -> str:
    """The student id a file or folder name stands for; undecodable bytes become ``\\xNN``."""
    name = path.name if path.is_dir() else path.name.split(".")[0] or path.name
    return shown(name)


def _modified(path: Path) -> dt.datetime | None:
    """When the entry was last changed: a file's time, or the newest time of a folder's files.

    A folder's own time does not change when a file in it is rewritten in place.
    """
    try:
        if path.is_dir():
            times = [p.stat().st_mtime for p in path.rglob("*") if p.is_file() and not p.is_symlink()]
            stamp = max(times, default=path.stat().st_mtime)
        else:
            stamp = path.stat().st_mtime
    except OSError:
        return None
    return dt.datetime.fromtimestamp(stamp, tz=dt.timezone.utc)


def list_entries(folder: Path) -> list[Entry]:
    """Every visible file or folder directly inside ``folder``, sorted by name."""
    children = sorted((p for p in folder.iterdir() if not p.name.startswith(".")), key=lambda p: os.fsencode(p.name))
    names = [student_name(p) for p in children]
    repeated = {name for name in names if names.count(name) > 1}
    return [
        Entry(shown(p.name) if name in repeated else name, p, _modified(p))  # ada.py beside ada/: keep both apart
        for p, name in zip(children, names)
    ]


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
