"""Manual overrides: a score set by hand, with who, when, why and the value it replaced.

Overrides live in the gradebook file, in a table of their own (``overrides``), never in the
graded rows: a regrade writes new rows and the overrides still apply to them. Each override
is kept (the history); the latest per student, assignment and question is the one in force.
One sets either the assignment's score (``question`` empty: the score students get, penalties
and all) or one question's points (the late and import penalties then apply to the new raw
score, as the grader applies them).

:func:`apply_overrides` gives the rows every export reads: score, question scores and the
record's student-facing note changed, the grader's own score kept in ``report`` as
``graded_score``. They apply oldest first: a score set after question points is final; question points
set after a score score the questions again.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path

from autograder.gradebook.store import BUSY_TIMEOUT_MS, GradebookRow
from autograder.i18n import msg, to_wire
from autograder.scoring import SCORE_DECIMALS, apply_penalties

SCHEMA = """
CREATE TABLE IF NOT EXISTS overrides (
    id INTEGER PRIMARY KEY,
    student TEXT NOT NULL,
    assignment TEXT NOT NULL,
    question TEXT,
    points REAL NOT NULL,
    previous REAL,
    reason TEXT NOT NULL,
    who TEXT NOT NULL,
    at TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class Override:
    """One override as stored (``question`` None: the assignment's score)."""

    student: str
    assignment: str
    question: str | None
    points: float
    previous: float | None
    reason: str
    who: str
    at: str


class OverrideBook:
    """The overrides of a gradebook file. Use as a context manager."""

    def __init__(self, path: Path | str):
        self._connection = sqlite3.connect(Path(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        self._connection.executescript(SCHEMA)

    def __enter__(self) -> "OverrideBook":
        return self

    def __exit__(self, *exc) -> None:
        self._connection.close()

    def add(self, override: Override) -> None:
        """Keep ``override`` (committed before returning)."""
        fields = Override.__dataclass_fields__
        self._connection.execute(f"INSERT INTO overrides ({', '.join(fields)}) VALUES ({', '.join('?' * len(fields))})",
                                 [getattr(override, name) for name in fields])

    def history(self) -> list[Override]:
        """Every override, oldest first."""
        cursor = self._connection.execute(f"SELECT {', '.join(Override.__dataclass_fields__)} FROM overrides ORDER BY id")
        return [Override(*values) for values in cursor.fetchall()]

    def in_force(self) -> dict[tuple[str, str], list[Override]]:
        """``{(student, assignment): overrides}``: the latest per question (and of the score), oldest first."""
        latest: dict[tuple[str, str, str | None], Override] = {}
        for override in self.history():
            latest.pop((override.student, override.assignment, override.question), None)
            latest[(override.student, override.assignment, override.question)] = override
        found: dict[tuple[str, str], list[Override]] = {}
        for override in latest.values():
            found.setdefault((override.student, override.assignment), []).append(override)
        return found


def now() -> str:
    """The time of an override, UTC, to the second."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def _note(record: dict, note) -> None:
    """Add a catalog message to the record's notes (shown in the student's feedback), in English and on the wire."""
    from autograder.i18n import render

    english = list(record.get("load_notes") or [])
    wired = record.get("i18n_load_notes")
    wired = list(wired) if isinstance(wired, list) and len(wired) == len(english) else list(english)
    record["load_notes"], record["i18n_load_notes"] = [*english, render(note, "en")], [*wired, to_wire(note)]


def _points(value: float) -> str:
    return f"{round(value, SCORE_DECIMALS):g}"


def _question_override(record: dict, override: Override) -> None:
    for question in record.get("questions") or []:
        if question.get("function") == override.question:
            _note(record, msg("Your instructor set the points of question {number} ({function}) by hand (it was {previous}).",
                              number=str(question.get("number")), function=override.question,
                              previous=_points(float(question.get("score", 0.0)))))
            question["score"] = override.points
    record["raw_score"] = round(sum(float(q.get("score", 0.0)) for q in record.get("questions") or []), SCORE_DECIMALS)
    record["score"] = apply_penalties(record["raw_score"], [float(p["fraction"]) for p in record.get("penalties") or []])


def overridden(row: GradebookRow, overrides: list[Override]) -> GradebookRow:
    """``row`` with ``overrides`` (of its student and assignment) applied: question points first, then a score."""
    report = row.report_dict
    kept = {"graded_score": row.score, "overrides": [o.__dict__ for o in overrides]}
    if not isinstance(report.get("result"), dict):  # a row the grader could not grade: its score alone, no feedback note
        scores = [o.points for o in overrides if o.question is None]
        return replace(row, score=scores[-1] if scores else row.score, report=json.dumps({**report, **kept}))
    record = json.loads(json.dumps(report["result"]))  # a deep copy: the row's own record stays as graded
    for override in overrides:  # oldest first: a later question override scores the questions again
        if override.question is not None:
            _question_override(record, override)
        else:
            _note(record, msg("Your instructor set this score by hand (it was {previous}).", previous=_points(record.get("score", row.score))))
            record["score"] = override.points
    return replace(row, score=round(float(record.get("score", row.score)), SCORE_DECIMALS),
                   raw_score=float(record.get("raw_score", row.raw_score)), report=json.dumps({**report, "result": record, **kept}),
                   tests=json.dumps(record["questions"]) if "questions" in record else row.tests)


def apply_overrides(rows: list[GradebookRow], in_force: dict[tuple[str, str], list[Override]]) -> list[GradebookRow]:
    """Every row with the overrides of its student and assignment applied (:func:`overridden`); the others as they are."""
    return [overridden(row, in_force[(row.student, row.assignment)]) if (row.student, row.assignment) in in_force else row
            for row in rows]
