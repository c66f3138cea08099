"""Manual scores of the written answers merged into the rows every export reads (totals, CSV, LMS, feedback, report).

:func:`with_written` adds to each row of an assignment with written questions the points of its
graded answers (an ungraded or unanswered answer counts 0 until graded), raises its
``max_score`` by the written points, and keeps in its report, under ``written``, one entry per
question: the points, the rubric items (applied or not, described in every language), the
comment and whether it is graded. The autograded score stays in the report as ``autograded_score``.
The grades live in their own table (:mod:`autograder.gradebook.written`), so a regrade of the
autograded part, which writes new rows, keeps them.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from autograder.gradebook.store import GradebookRow
from autograder.scoring import SCORE_DECIMALS

#: The report key of the written entries.
WRITTEN = "written"


def written_points(assignment) -> float:
    """The points of the assignment's written questions."""
    return sum(q.points for q in assignment.written)


def points_possible(assignment) -> float:
    """What the assignment is out of in every export: its autograded points and its written ones."""
    return assignment.max_points + written_points(assignment)


def _entry(number: int, question, held) -> dict:
    applied = set(held.items) if held is not None and held.graded else set()
    return {
        "id": question.id, "number": number, "points": question.points, "prompt": dict(question.prompt),
        "answered": bool(held and held.answered), "graded": bool(held and held.graded),
        "score": question.score_of(applied) if held is not None and held.graded else 0.0,
        "items": [{"id": i.id, "points": i.points, "description": dict(i.description), "applied": i.id in applied}
                  for i in question.rubric],
        "comment": held.comment if held is not None and held.graded else "",
    }


def written_entries(assignment, held: dict) -> list[dict]:
    """The ``written`` entries of one student's row: ``held`` is ``{question id: WrittenRow}``."""
    return [_entry(n, q, held.get(q.id)) for n, q in enumerate(assignment.written, start=1)]


def merged(row: GradebookRow, assignment, held: dict) -> GradebookRow:
    """``row`` with the written answers ``held`` (``{question id: WrittenRow}``) added to its score."""
    entries = written_entries(assignment, held)
    report = {**row.report_dict, WRITTEN: entries, "autograded_score": row.score}
    total = round(row.score + sum(e["score"] for e in entries), SCORE_DECIMALS)
    return replace(row, score=total, max_score=row.max_score + written_points(assignment), report=json.dumps(report))


def with_written(course, rows: list[GradebookRow], gradebook_path: Path) -> list[GradebookRow]:
    """Every row with the manual scores of its student's written answers (rows of other assignments as they are)."""
    with_questions = {a.id: a for a in course.assignments if a.written}
    if not any(row.assignment in with_questions for row in rows):
        return rows
    from autograder.gradebook.written import WrittenBook

    held: dict[tuple[str, str], dict] = {}
    with WrittenBook(gradebook_path) as book:
        for answer in book.rows():
            held.setdefault((answer.student, answer.assignment), {})[answer.question] = answer
    return [merged(row, with_questions[row.assignment], held.get((row.student, row.assignment), {}))
            if row.assignment in with_questions else row for row in rows]
