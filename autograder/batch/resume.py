"""When a batch may skip an entry: its resume key.

An entry is skipped only when the gradebook's current row for it (the latest of its student
and assignment, which is what every export shows) was graded from what would grade it now:
the entry's bytes, its submission time and where that came from, and the grading fingerprint
(the grader version, course.yml's bytes and the hidden suite's bytes). An older row with the
same bytes does not count: a student who hands the stub in, then a copied solution, then the
stub again is graded on the stub.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import autograder
from autograder.batch.entries import Entry
from autograder.gradebook.store import GradebookRow
from autograder.layout import CourseDirectory
from autograder.seeding import course_secret

#: Hex digits of the grading fingerprint kept in the gradebook.
FINGERPRINT_CHARS = 12
#: What in a hidden suite's folder is not part of the suite (Python's caches of it).
NOT_SUITE = ("__pycache__",)


def suite_files(assignment_id: str, hidden_dir: Path) -> list[Path]:
    """Every file of an assignment's hidden suite (its folder, recursively, caches left out), sorted."""
    folder = Path(hidden_dir) / assignment_id
    return sorted(
        p for p in folder.rglob("*")
        if p.is_file() and not any(part in NOT_SUITE for part in p.relative_to(folder).parts) and p.suffix != ".pyc"
    )


def _add(digest, label: bytes, data: bytes) -> None:
    """Feed one named part to ``digest``, each length first, so that no two different sets of parts hash alike."""
    for part in (label, data):
        digest.update(len(part).to_bytes(8, "big") + part)


def grading_fingerprint(course_file: Path, assignment_id: str, hidden_dir: Path | None = None, also: bytes = b"") -> str:
    """The grader version plus a hash of course.yml's bytes and the bytes and names of the hidden suite.

    Change any of them (a point, a due date, a tolerance, a comment, a hidden test, a helper of
    the suite, the grader version) and the next batch grades every entry again.

    Parameters
    ----------
    hidden_dir : Path, optional
        The folder of hidden suites (by default the course's, see :class:`~autograder.layout.CourseDirectory`).
    also : bytes, optional
        More that grading depends on: the extensions file course.yml names
        (:func:`autograder.gradebook.csv_input.class_file_bytes`).
    """
    version = autograder.__version__
    digest = hashlib.sha256()
    _add(digest, b"version", version.encode())
    _add(digest, b"course", Path(course_file).read_bytes())
    if also:  # nothing added without: a course without extensions keeps its fingerprints
        _add(digest, b"also", also)
    secret = course_secret(course_file)
    if secret:  # a new secret draws new inputs for every entry: grade them again
        _add(digest, b"secret", hashlib.blake2b(secret, person=b"attn-fingerprint").digest())
    hidden_dir = CourseDirectory.of(course_file).hidden_tests if hidden_dir is None else Path(hidden_dir)
    folder = hidden_dir / assignment_id
    for path in suite_files(assignment_id, hidden_dir):
        _add(digest, os.fsencode(path.relative_to(folder)), path.read_bytes())
    return f"{version}+{digest.hexdigest()[:FINGERPRINT_CHARS]}"


def submitted_text(entry: Entry) -> str | None:
    """The entry's submission time as the gradebook keeps it (ISO 8601), None when it has none."""
    return entry.submitted_at.isoformat() if entry.submitted_at else None


def is_current(row: GradebookRow | None, entry: Entry, digest: str, fingerprint: str) -> bool:
    """Whether ``row``, the gradebook's current row of the entry's student, stands for grading the entry now.

    Parameters
    ----------
    row : GradebookRow or None
        The latest row of the student and assignment (None: never graded).
    digest : str
        The entry's content hash now (:func:`autograder.batch.entries.content_hash`).
    fingerprint : str
        :func:`grading_fingerprint` now.
    """
    return (
        row is not None and row.status == "graded" and row.content_hash == digest and row.grader_version == fingerprint
        and row.submitted_at == submitted_text(entry) and row.submitted_at_source == entry.submitted_at_source
    )
