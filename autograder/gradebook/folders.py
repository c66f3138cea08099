"""The feedback folder of each student: a safe, readable name, and never one folder for two students.

:func:`safe_name` makes one student id a folder name that is safe on every file system:
letters and digits of any script, ``.``, ``_`` and ``-`` stay (王小明 and Émile keep their
names); a name that had to change (other characters, a leading dot, ``..``, a Windows device
name such as ``CON``, or too long) gets ``~`` and a hash of the id. No id keeps a ``~``, so
a changed name is never the unchanged name of another id (``ada_lovelace~1a2b3c4d`` cannot be
a student's own folder name).

:func:`feedback_folders` then looks at the whole class, as a file system that ignores case and
Unicode normalisation would (macOS, Windows): students whose names would land in one folder
there (``Ada`` and ``ada``, two long names cut alike, a hash shared by chance) each get ``~1``,
``~2``... in the order of their ids, choosing a name no other student has. The mapping is one
to one by construction, and ``students.csv`` in the feedback folder writes it down.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

#: Hex digits of the hash that keeps changed names apart.
NAME_HASH_CHARS = 8
#: Characters kept from a student id: letters and digits of any script, ``_ . -``; every other one becomes ``_``.
_UNSAFE = re.compile(r"[^\w.-]+")
#: What joins a changed name to its hash, and a name to its number among students that collide: never kept from an id.
MARK = "~"
#: Longest folder name kept from a student id (before the marks), in UTF-8 bytes (file systems allow 255).
MAX_NAME_BYTES = 120
#: The name of an id with nothing to keep.
EMPTY_NAME = "student"
#: Names Windows keeps for devices, whatever follows their first dot (``CON``, ``con.txt``, ``COM1``).
RESERVED = frozenset({"CON", "PRN", "AUX", "NUL", *(f"{d}{n}" for d in ("COM", "LPT") for n in "0123456789¹²³")})


def _cut(text: str, limit: int = MAX_NAME_BYTES) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, at a character boundary."""
    return text.encode("utf-8")[:limit].decode("utf-8", errors="ignore")


def safe_name(student: str) -> str:
    """A file-system-safe, readable folder name for one student id (see the module's description).

    Parameters
    ----------
    student : str
        The id (any text; lone surrogates are hashed as their escapes).

    Returns
    -------
    str
        The id itself when it is safe as it is, else what is kept of it, ``~`` and a hash of the id.
    """
    normal = unicodedata.normalize("NFC", student)
    cleaned = _cut(_UNSAFE.sub("_", normal).strip("._")) or EMPTY_NAME
    if cleaned.split(".")[0].upper() in RESERVED:
        cleaned = "_" + cleaned
    if cleaned == student:
        return cleaned
    digest = hashlib.sha256(student.encode("utf-8", "backslashreplace")).hexdigest()[:NAME_HASH_CHARS]
    return f"{cleaned}{MARK}{digest}"


def folder_key(name: str) -> str:
    """What a file system that ignores case and Unicode normalisation compares of a folder name (or a stricter key)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def feedback_folders(students: Iterable[str]) -> dict[str, str]:
    """The folder name of every student, no two alike even where case and normalisation are ignored.

    Parameters
    ----------
    students : iterable of str
        The class's ids (repeats are one student).

    Returns
    -------
    dict
        ``{student: folder name}``: :func:`safe_name`, or where two students' names would share
        a folder, that name with ``~`` and the first number that makes it unique.
    """
    preferred = {student: safe_name(student) for student in sorted(set(students))}
    claims = Counter(folder_key(name) for name in preferred.values())
    taken = set(claims)  # a numbered name never takes a name another student keeps or prefers
    folders = {}
    for student, name in preferred.items():
        if claims[folder_key(name)] == 1:
            folders[student] = name
            continue
        number = 1
        while folder_key(f"{name}{MARK}{number}") in taken:
            number += 1
        folders[student] = f"{name}{MARK}{number}"
        taken.add(folder_key(folders[student]))
    return folders
