"""``attn-course gradebook merge OUT SHARD...``: the shards' gradebooks as one, idempotently.

Every row of every shard (its history too) is copied into ``OUT`` unless ``OUT`` already
holds it: a row is known by what it says (student, assignment, content hash, grader version,
score, time graded, ...), so merging a shard twice, or a gradebook into itself, adds nothing.
Rows are added oldest first (by ``graded_at``), so each student's current row stays the one
graded last. A **conflict** is a shard row with the key of a row ``OUT`` holds
(student, assignment, content hash, grader version) that says something else, or two shards
whose current rows of one student and assignment differ (the student was graded on two
machines): it is reported, and the row ``OUT`` holds is kept. Overrides are merged the same
way (an identical override is not added twice).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from autograder.gradebook.overrides import Override, OverrideBook
from autograder.gradebook.store import _COLUMNS, Gradebook, GradebookRow, gradebook_problem
from autograder.student_text import clean_name

#: The columns a row is known by (its identity) when merged: all but when and how long it took to grade.
_KEY = ("student", "assignment", "content_hash", "grader_version")


@dataclass
class MergeReport:
    """What a merge did: rows added, rows already there, and the conflicts (one line each)."""

    added: int = 0
    already: int = 0
    conflicts: list[str] = field(default_factory=list)


def _history(path: Path) -> tuple[list[GradebookRow], list[Override]]:
    """Every row of the gradebook at ``path``, oldest first, and its overrides (read-only; an older schema is filled in)."""
    connection = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    try:
        present = {row[1] for row in connection.execute("PRAGMA table_info(submissions)")}
        columns = [c for c in _COLUMNS if c in present]
        values = connection.execute(f"SELECT {', '.join(columns)} FROM submissions ORDER BY graded_at, id").fetchall()
        try:
            overrides = connection.execute(f"SELECT {', '.join(Override.__dataclass_fields__)} FROM overrides ORDER BY id")
            found_overrides = [Override(*v) for v in overrides.fetchall()]
        except sqlite3.OperationalError:  # a gradebook without overrides
            found_overrides = []
    finally:
        connection.close()
    return [Gradebook._row(_padded(columns, v)) for v in values], found_overrides


def _padded(columns: list[str], values) -> tuple:
    fields = dict(zip(columns, values))
    defaults = {"submitted_at_source": "file time", "seed": None}
    return tuple(fields.get(c, defaults.get(c)) for c in _COLUMNS)


def _same(a: GradebookRow, b: GradebookRow) -> bool:
    return all(getattr(a, c) == getattr(b, c) for c in _COLUMNS if c not in ("graded_at", "execution_time"))


def _current_conflicts(inputs: dict[Path, list[GradebookRow]]) -> list[str]:
    current: dict[tuple[str, str], tuple[Path, GradebookRow]] = {}
    conflicts = []
    for path, rows in inputs.items():
        latest = {(r.student, r.assignment): r for r in rows}
        for key, row in latest.items():
            if key in current and not _same(current[key][1], row):
                conflicts.append(f"{clean_name(key[0])} {key[1]}: graded in {current[key][0]} and in {path} "
                                 f"({current[key][1].score:g} and {row.score:g}); the later graded counts")
            current.setdefault(key, (path, row))
    return conflicts


def merge_gradebooks(out: Path, inputs: list[Path]) -> MergeReport:
    """Merge the gradebooks ``inputs`` into ``out`` (created when missing); see the module.

    Raises
    ------
    GraderError
        When an input is not a gradebook.
    """
    from autograder.errors import GraderError

    for path in inputs:
        problem = gradebook_problem(path)
        if problem:
            raise GraderError(f"{path} is not a gradebook: {problem}")
    read = {Path(path): _history(path) for path in inputs}
    report = MergeReport(conflicts=_current_conflicts({p: rows for p, (rows, _) in read.items()}))
    rows = sorted((row for rows, _ in read.values() for row in rows), key=lambda r: r.graded_at)
    with Gradebook(out) as book:
        for row in rows:
            held = book.row_with_key(*(getattr(row, c) for c in _KEY))
            if held is None:
                book.record(row)
                report.added += 1
            elif _same(held, row):
                report.already += 1
            else:
                report.conflicts.append(f"{clean_name(row.student)} {row.assignment}: two different rows of the same "
                                        f"submission and grader ({held.score:g} and {row.score:g}); the first is kept")
    _newest_current(out, {(row.student, row.assignment) for row in rows})
    with OverrideBook(out) as overrides:
        held = set(overrides.history())
        for override in (o for _, found in read.values() for o in found):
            if override not in held:
                overrides.add(override)
                held.add(override)
    return report


def _newest_current(out: Path, keys: set[tuple[str, str]]) -> None:
    """Make each merged student's current row the one graded last, whichever gradebook it came from (a row merged
    after a newer one would otherwise be current only because it was written last)."""
    history, _ = _history(out)
    with Gradebook(out) as book:
        for key in sorted(keys):
            rows = [row for row in history if (row.student, row.assignment) == key]
            newest, current = rows[-1], book.current_row(*key)  # history is oldest first
            if current is not None and current.graded_at < newest.graded_at:
                book.record(newest)  # written again, it is the latest row


def main(out: Path, inputs: list[Path]) -> tuple[list[str], bool]:
    """The lines ``gradebook merge`` prints, and whether there was a conflict."""
    report = merge_gradebooks(out, inputs)
    lines = [f"{report.added} rows added, {report.already} already in {out}, {len(report.conflicts)} conflicts"]
    return lines + [f"conflict: {line}" for line in report.conflicts], bool(report.conflicts)
