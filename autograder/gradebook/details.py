"""The detailed CSV of one assignment: a column per question, the raw score, late days, penalty and max points.

One row per student (every roster student, with a roster; no submission counts 0), after a
first row that gives the points each column is out of: its ``student`` cell is empty (no
student id is) and its ``status`` cell says ``max points``. ``penalty`` is the points the
penalties removed (lateness, disallowed imports): ``raw_score - penalty = score``, before any
override; ``override`` says when an instructor set the score by hand. Written questions (graded by people,
:mod:`autograder.gradebook.written_scores`) have a column each after the functions; ``score`` and ``max_points`` include
them, ``raw_score`` and ``penalty`` are the autograded part's.
"""

from __future__ import annotations

import json
from pathlib import Path

from autograder.gradebook.lms import _write, number
from autograder.gradebook.reasons import row_reasons
from autograder.gradebook.store import GradebookRow
from autograder.gradebook.written_scores import points_possible

#: The status cell of the first row.
MAX_POINTS = "max points"
LEADING = ("student", "name", "sis_id", "section", "status")
TRAILING = ("raw_score", "late_days", "penalty", "score", "max_points", "reasons")


def question_scores(row: GradebookRow) -> dict[str, float]:
    """``{function: score}`` of the row's questions, from its canonical record (empty for a row that was not graded)."""
    try:
        questions = (row.report_dict.get("result") or {}).get("questions") or json.loads(row.tests)
    except (ValueError, AttributeError):
        return {}
    return {q["function"]: float(q["score"]) for q in questions if isinstance(q, dict) and "function" in q}


def detail_header(assignment) -> list[str]:
    """The columns of the detailed CSV of ``assignment``: a column per question, written ones (by id) after the functions."""
    return [*LEADING, *assignment.functions, *(q.id for q in assignment.written), *TRAILING]


def _written_scores(row: GradebookRow) -> dict[str, float]:
    """``{question id: manual score}`` of the row's written answers (:mod:`autograder.gradebook.written_scores`)."""
    return {e["id"]: float(e["score"]) for e in row.report_dict.get("written") or [] if isinstance(e, dict)}


def _max_row(assignment) -> list:
    points = [number(q.points) for q in (*assignment.questions, *assignment.written)]
    return ["", "", "", "", MAX_POINTS, *points, number(assignment.max_points), "", "", "", number(points_possible(assignment)), ""]


def _student_row(row: GradebookRow, assignment, student) -> list:
    questions = question_scores(row)
    base = row.raw_score if row.status == "graded" else 0.0
    graded_score = (row.report_dict.get("result") or {}).get("score", row.score)  # the grader's, before any override
    penalty = max(0.0, base - graded_score) if row.status == "graded" else 0.0
    return [row.student, student.name if student else "", student.sis_id if student else "",
            student.section if student else "", row.status, *(number(questions.get(f, 0.0)) for f in assignment.functions),
            *(number(_written_scores(row).get(q.id, 0.0)) for q in assignment.written),
            number(base), row.days_late, number(penalty), number(row.score), number(row.max_score),
            "; ".join(row_reasons(row))]


def write_details(rows: list[GradebookRow], assignment, path: Path, roster=None) -> Path:
    """The detailed CSV of ``assignment`` (see the module's description).

    Parameters
    ----------
    rows : list of GradebookRow
        The gradebook's current rows (of any assignments: those of ``assignment`` are written).
    roster : Roster, optional
        The class list: a row for each of its students, then the entries not in it.
    """
    from autograder.gradebook.roster import class_rows

    own = [r for r in rows if r.assignment == assignment.id]
    listed = class_rows(roster, own, assignment).rows if roster is not None else sorted(own, key=lambda r: r.student)
    table = [detail_header(assignment), _max_row(assignment)]
    table += [_student_row(row, assignment, roster.find(row.student) if roster else None) for row in listed]
    return _write(path, table)
