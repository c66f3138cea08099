"""Large classes across machines: ``attn-course grade --shard K/N`` grades the K-th of N shares of a class folder.

A student's shard is decided by their id alone (a hash of it, in Unicode NFC), never by the
folder's listing: every machine of an array job (Slurm arrays, Kubernetes indexed jobs, a
GitHub Actions matrix) agrees on it whatever else its copy of the folder holds, and the N
shards together are the whole class, each student in exactly one. Each shard grades into a
gradebook of its own; ``attn-course gradebook merge`` combines them
(:mod:`autograder.gradebook.merge`).
"""

from __future__ import annotations

import hashlib
import re

from autograder.gradebook.csv_input import student_key

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def parse_shard(text: str) -> tuple[int, int]:
    """``(K, N)`` of ``"K/N"``, 1 <= K <= N.

    Raises
    ------
    ValueError
        Saying what the form is.
    """
    found = _SHARD.match(text or "")
    if not found or not 1 <= int(found[1]) <= int(found[2]):
        raise ValueError(f"{text!r} is not K/N with 1 <= K <= N (e.g. 2/8: the second of eight shards)")
    return int(found[1]), int(found[2])


def shard_of(student: str, shards: int) -> int:
    """The shard (1 to ``shards``) of ``student``."""
    digest = hashlib.sha256(student_key(student).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % shards + 1


def in_shard(student: str, shard: tuple[int, int] | None) -> bool:
    """Whether ``student`` is graded by ``shard`` (every student is, without one)."""
    return shard is None or shard_of(student, shard[1]) == shard[0]
