"""The written answers of a gradebook file and their manual grades (table ``written``), one version per answer.

A row per student, assignment and question: the answer as extracted (``answered`` 0 when there is
none), the rubric items a TA applied, their comment, who graded it and when, and ``version``,
raised by every change. A save names the version it was based on and is refused
(:class:`StaleSave`) when the row has moved on since: two TAs grading the same answer never
overwrite each other. Storing the same answer again (a regrade of the autograded part) changes
nothing; a changed answer keeps its grade but counts as ungraded again.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from autograder.gradebook.store import BUSY_TIMEOUT_MS

SCHEMA = """
CREATE TABLE IF NOT EXISTS written (
    student TEXT NOT NULL,
    assignment TEXT NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    answered INTEGER NOT NULL,
    source TEXT NOT NULL DEFAULT '',
    items TEXT NOT NULL DEFAULT '[]',
    comment TEXT NOT NULL DEFAULT '',
    graded INTEGER NOT NULL DEFAULT 0,
    graded_by TEXT,
    graded_at TEXT,
    version INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (student, assignment, question)
);
"""
_COLUMNS = ("student", "assignment", "question", "answer", "answered", "source", "items", "comment", "graded",
            "graded_by", "graded_at", "version")


class StaleSave(Exception):
    """A save based on a version of the answer that another save has replaced; ``current`` is the row now."""

    def __init__(self, current: "WrittenRow"):
        super().__init__(f"answer changed since version {current.version - 1}")
        self.current = current


@dataclass(frozen=True)
class WrittenRow:
    """One student's answer to one written question, with its manual grade."""

    student: str
    assignment: str
    question: str
    answer: str
    answered: bool
    source: str
    items: tuple[str, ...]
    comment: str
    graded: bool
    graded_by: str | None
    graded_at: str | None
    version: int


def _row(values) -> WrittenRow:
    fields = dict(zip(_COLUMNS, values))
    fields.update(answered=bool(fields["answered"]), graded=bool(fields["graded"]), items=tuple(json.loads(fields["items"])))
    return WrittenRow(**fields)


class WrittenBook:
    """The written answers of a gradebook file. Use as a context manager."""

    def __init__(self, path: Path | str):
        self._connection = sqlite3.connect(Path(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                                           check_same_thread=False)
        self._connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        self._connection.execute("PRAGMA synchronous = NORMAL")  # as the gradebook's own: WAL keeps a commit safe
        self._connection.executescript(SCHEMA)

    def __enter__(self) -> "WrittenBook":
        return self

    def __exit__(self, *exc) -> None:
        self._connection.close()

    def _transaction(self, work):
        """Run ``work()`` in one immediate transaction: committed when it returns, rolled back when it raises."""
        self._connection.execute("BEGIN IMMEDIATE")
        try:
            result = work()
            self._connection.execute("COMMIT")
            return result
        except BaseException:
            self._connection.execute("ROLLBACK")
            raise

    def _get(self, student: str, assignment: str, question: str) -> WrittenRow | None:
        values = self._connection.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM written WHERE student = ? AND assignment = ? AND question = ?",
            (student, assignment, question)).fetchone()
        return None if values is None else _row(values)

    def row(self, student: str, assignment: str, question: str) -> WrittenRow | None:
        """The answer of ``student`` to ``question``, or None."""
        return self._get(student, assignment, question)

    def rows(self, assignment: str | None = None, question: str | None = None) -> list[WrittenRow]:
        """Every answer (of ``assignment`` and ``question``, when given), by assignment, question and student."""
        cursor = self._connection.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM written WHERE (? IS NULL OR assignment = ?) AND (? IS NULL OR question = ?) "
            "ORDER BY assignment, question, student", (assignment, assignment, question, question))
        return [_row(values) for values in cursor.fetchall()]

    def progress(self, assignment: str) -> dict[str, tuple[int, int]]:
        """``{question: (answers graded, answers)}`` of ``assignment``, counted by SQLite."""
        cursor = self._connection.execute(
            "SELECT question, SUM(graded), COUNT(*) FROM written WHERE assignment = ? GROUP BY question", (assignment,))
        return {question: (int(graded or 0), int(total)) for question, graded, total in cursor.fetchall()}

    def graded_flags(self, assignment: str, question: str) -> list[tuple[str, bool]]:
        """``(student, graded)`` of every answer to ``question``: what ordering and filtering need, without the texts."""
        cursor = self._connection.execute("SELECT student, graded FROM written WHERE assignment = ? AND question = ?",
                                          (assignment, question))
        return [(student, bool(graded)) for student, graded in cursor.fetchall()]

    def store_answers(self, student: str, assignment: str, answers) -> None:
        """Keep the extracted ``answers`` (:class:`~autograder.written.extract.Answer`) of one submission, at once.

        The same text again changes nothing; a changed text keeps the grade, counts as ungraded and raises the version.
        """
        def work():
            for answer in answers:
                held = self._get(student, assignment, answer.question)
                if held is None:
                    self._connection.execute(
                        "INSERT INTO written (student, assignment, question, answer, answered, source) VALUES (?, ?, ?, ?, ?, ?)",
                        (student, assignment, answer.question, answer.text, int(answer.answered), answer.source))
                elif (held.answer, held.answered) != (answer.text, answer.answered):
                    self._connection.execute(
                        "UPDATE written SET answer = ?, answered = ?, source = ?, graded = 0, version = version + 1 "
                        "WHERE student = ? AND assignment = ? AND question = ?",
                        (answer.text, int(answer.answered), answer.source, student, assignment, answer.question))
        self._transaction(work)

    def save(self, student: str, assignment: str, question: str, items, comment: str, based_on: int, who: str) -> WrittenRow:
        """Keep a TA's grade of one answer, if the answer is still at version ``based_on``; the row as saved.

        A save that says what the row already holds is kept whatever its version (nothing changes).

        Raises
        ------
        StaleSave
            When another save (or a changed answer) has moved the row past ``based_on``: nothing is written.
        KeyError
            When there is no such answer.
        """
        def work():
            held = self._get(student, assignment, question)
            if held is None:
                raise KeyError(question)
            if held.version != based_on:
                if held.graded and (held.items, held.comment) == (tuple(sorted(set(items))), comment):
                    return held  # the same grade again (a save repeated after a reload) is no conflict
                raise StaleSave(held)
            at = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
            self._connection.execute(
                "UPDATE written SET items = ?, comment = ?, graded = 1, graded_by = ?, graded_at = ?, version = version + 1 "
                "WHERE student = ? AND assignment = ? AND question = ?",
                (json.dumps(sorted(set(items))), comment, who, at, student, assignment, question))
            return self._get(student, assignment, question)
        return self._transaction(work)
