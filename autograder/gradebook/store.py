"""SQLite storage of graded submissions.

Each result is committed in its own transaction the moment it is graded, so an
interrupted batch loses nothing. WAL journaling and a busy timeout let two batches
write to the same file at once without corrupting it. A row is keyed by student,
assignment, content hash and grader version, and the latest row of a student and
assignment is their grade (:mod:`autograder.batch.resume` decides from it what to skip).
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

#: How long a writer waits for another writer's transaction, in milliseconds.
BUSY_TIMEOUT_MS = 30_000
#: Seconds between two tries of the switch to WAL while another process holds the new file.
WAL_RETRY_S = 0.01

SCHEMA = """
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY,
    student TEXT NOT NULL,
    assignment TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    grader_version TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('graded', 'error')),
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    raw_score REAL NOT NULL,
    error TEXT,
    diagnoses TEXT NOT NULL,
    tests TEXT NOT NULL,
    isolation TEXT NOT NULL,
    days_late INTEGER NOT NULL,
    submitted_at TEXT,
    submitted_at_source TEXT NOT NULL DEFAULT 'none',
    graded_at TEXT NOT NULL,
    execution_time REAL NOT NULL,
    report TEXT NOT NULL,
    seed INTEGER,
    UNIQUE (student, assignment, content_hash, grader_version)
);
CREATE INDEX IF NOT EXISTS by_student ON submissions (assignment, student);
"""
#: Columns added since the first schema, with what a row of an older gradebook holds in them:
#: the first schema always took submission times from file times, and kept no seed.
ADDED_COLUMNS = {"submitted_at_source": "TEXT NOT NULL DEFAULT 'file time'", "seed": "INTEGER"}


@dataclass(frozen=True)
class GradebookRow:
    """One graded submission as stored."""

    student: str
    assignment: str
    content_hash: str
    grader_version: str
    status: str
    score: float
    max_score: float
    raw_score: float
    error: str | None
    diagnoses: tuple[str, ...]
    tests: str  # JSON: per-question, per-test results
    isolation: str
    days_late: int
    submitted_at: str | None
    graded_at: str
    execution_time: float
    report: str  # JSON: the full result (autograder.report.text.to_dict)
    seed: int | None = None  # the grading run's seed, for an exact replay (`attn-course grade --seed`)
    submitted_at_source: str = "none"  # where submitted_at came from (autograder.grade.submitted.TimeSource)

    @property
    def report_dict(self) -> dict:
        return json.loads(self.report)


_COLUMNS = tuple(GradebookRow.__dataclass_fields__)
#: The first bytes of every SQLite database file.
SQLITE_MAGIC = b"SQLite format 3\x00"


def gradebook_problem(path: Path | str) -> str | None:
    """Why the file at ``path`` is not a gradebook (not SQLite, or no submissions table), or None when it is one.

    The file is opened read-only: nothing is created or changed.
    """
    path = Path(path)
    try:
        with path.open("rb") as handle:
            magic = handle.read(len(SQLITE_MAGIC))
    except OSError as error:
        return f"cannot read it ({error.strerror})"
    if magic != SQLITE_MAGIC:
        return "it is not an SQLite database"
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            found = connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'submissions'").fetchone()
        finally:
            connection.close()
    except sqlite3.DatabaseError as error:
        return f"SQLite cannot read it ({error})"
    return None if found else "it has no submissions table"


class Gradebook:
    """A gradebook file. Use as a context manager, or call :meth:`close`."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._connection = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        self._connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        self._use_wal()
        self._connection.execute("PRAGMA synchronous = NORMAL")
        self._connection.executescript(SCHEMA)
        self._add_new_columns()

    def _use_wal(self) -> None:
        """Switch the file to write-ahead logging (kept in the file, so the first opener does it for all).

        SQLite answers the switch with "database is locked" at once, without waiting out the
        busy timeout, when another process is creating or switching the same new file; the
        switch is tried again until that timeout.

        Raises
        ------
        sqlite3.OperationalError
            When the file stays locked for the whole busy timeout, or for any other reason.
        """
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                self._connection.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() >= deadline:
                    raise
            time.sleep(WAL_RETRY_S)

    def _add_new_columns(self) -> None:
        """Bring a gradebook of an earlier schema up to date; its rows keep what they meant."""
        present = {row[1] for row in self._connection.execute("PRAGMA table_info(submissions)")}
        for name, declaration in ADDED_COLUMNS.items():
            if name not in present:
                try:
                    self._connection.execute(f"ALTER TABLE submissions ADD COLUMN {name} {declaration}")
                except sqlite3.OperationalError as error:  # another batch added it meanwhile
                    if "duplicate column" not in str(error):
                        raise

    def __enter__(self) -> "Gradebook":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._connection.close()

    def current_row(self, student: str, assignment: str) -> GradebookRow | None:
        """The latest row of ``student`` and ``assignment`` (what :meth:`rows` and every export show), or None.

        Whether a batch may skip an entry is decided against this row alone: an older row with
        the same bytes is history, not the student's current grade.
        """
        values = self._connection.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM submissions WHERE student = ? AND assignment = ? ORDER BY id DESC LIMIT 1",
            (student, assignment),
        ).fetchone()
        return None if values is None else self._row(values)

    def row_with_key(self, student: str, assignment: str, content_hash: str, grader_version: str) -> GradebookRow | None:
        """The row of this submission graded by this grader (the table's unique key), or None."""
        values = self._connection.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM submissions WHERE student = ? AND assignment = ? AND content_hash = ? "
            "AND grader_version = ?", (student, assignment, content_hash, grader_version),
        ).fetchone()
        return None if values is None else self._row(values)

    def record(self, row: GradebookRow) -> None:
        """Insert or replace ``row``, committed before returning."""
        values = [json.dumps(list(row.diagnoses)) if name == "diagnoses" else getattr(row, name) for name in _COLUMNS]
        placeholders = ", ".join("?" for _ in _COLUMNS)
        self._connection.execute("BEGIN IMMEDIATE")
        try:
            self._connection.execute(
                f"INSERT OR REPLACE INTO submissions ({', '.join(_COLUMNS)}) VALUES ({placeholders})", values
            )
            self._connection.execute("COMMIT")
        except BaseException:
            self._connection.execute("ROLLBACK")
            raise

    def rows(self, assignment: str | None = None) -> list[GradebookRow]:
        """The latest row per (student, assignment), ordered by assignment then student."""
        query = f"""
            SELECT {', '.join(_COLUMNS)} FROM submissions AS s
            WHERE id = (SELECT MAX(id) FROM submissions AS t
                        WHERE t.student = s.student AND t.assignment = s.assignment)
            {'AND assignment = ?' if assignment else ''}
            ORDER BY assignment, student
        """
        cursor = self._connection.execute(query, (assignment,) if assignment else ())
        return [self._row(values) for values in cursor.fetchall()]

    def students(self) -> set[str]:
        """Every student with a row, of any assignment."""
        return {values[0] for values in self._connection.execute("SELECT DISTINCT student FROM submissions")}

    @staticmethod
    def _row(values) -> GradebookRow:
        fields = dict(zip(_COLUMNS, values))
        fields["diagnoses"] = tuple(json.loads(fields["diagnoses"]))
        return GradebookRow(**fields)

    def integrity_ok(self) -> bool:
        """SQLite's own integrity check."""
        try:
            return self._connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        except sqlite3.DatabaseError:
            return False
