"""Grade files for learning management systems: Canvas's gradebook import CSV and Moodle's grade import CSV.

**Canvas** (Grades > Import): the columns ``Student, ID, SIS User ID, SIS Login ID, Section``,
then one column per assignment headed by its title; the second row is ``Points Possible``
with each assignment's points. Canvas matches a row to a student by ``ID`` (its own user id,
which the grader does not know: left empty), ``SIS User ID`` (the roster's ``sis_id``) or
``SIS Login ID`` (the grader's student id, which is the login the roster's ``id`` holds); the
student's name is written as Canvas exports it, ``Last, First``. A column without a
Canvas id in parentheses creates the assignment on the first import.

**Moodle** (Grades > Import > CSV file): a header, then one row per student. On import the
instructor maps one column to a user field (``ID number`` to ``useridnumber``, ``Email
address`` to ``useremail`` or ``Username`` to ``username``) and each assignment column to its
grade item; grades are plain numbers with a decimal point.

Both files hold every roster student (no submission: 0, as the grader counts it) and no
entry that is not in the roster (the LMS could not match it; the batch summary and the
class report list those). Without a roster every entry is a row, known by its student id.
Every text cell goes through :func:`autograder.escape.csv_cell`.
"""

from __future__ import annotations

import csv
from pathlib import Path

from autograder.escape import csv_cell
from autograder.gradebook.roster import RosterStudent
from autograder.gradebook.store import GradebookRow
from autograder.gradebook.written_scores import points_possible
from autograder.scoring import SCORE_DECIMALS

CANVAS_ID_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
#: What the second row of a Canvas file says in its Student column.
POINTS_POSSIBLE = "Points Possible"
MOODLE_ID_COLUMNS = ("Username", "ID number", "Email address", "First name", "Last name")


def number(value: float) -> str:
    """A score as both LMSs read it: a plain decimal number, no exponent, no trailing zeros (``7.5``, ``9``)."""
    text = f"{round(value, SCORE_DECIMALS):.{SCORE_DECIMALS}f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def class_students(rows: list[GradebookRow], roster) -> list[RosterStudent]:
    """The students the LMS files list: the roster's, in its order; without a roster, every student with a row, sorted."""
    if roster is not None:
        return list(roster.students)
    return [RosterStudent(student) for student in sorted({row.student for row in rows})]


def scores_by_student(rows: list[GradebookRow], roster) -> dict[tuple[str, str], float]:
    """``{(student id, assignment): score}`` of the rows, with the roster's spelling of each id."""
    scores = {}
    for row in rows:
        student = roster.find(row.student) if roster is not None else RosterStudent(row.student)
        if student is not None:
            scores.setdefault((student.id, row.assignment), row.score)
    return scores


def split_name(name: str) -> tuple[str, str]:
    """``(first, last)`` of a roster name: the last word is the last name ("Ada King Lovelace" -> "Ada King", "Lovelace")."""
    first, _, last = name.strip().rpartition(" ")
    return (first, last) if first else (last, "")


def canvas_name(student: RosterStudent) -> str:
    """The Student cell: ``Last, First`` as Canvas exports names (a name without a space as it is; no name: the id)."""
    if not student.name:
        return student.id
    if "," in student.name:
        return student.name
    first, last = split_name(student.name)
    return f"{last}, {first}" if last else first


def _write(path: Path, table: list[list]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        for cells in table:
            writer.writerow([csv_cell(cell) for cell in cells])
    return path


def write_canvas(rows: list[GradebookRow], assignments, path: Path, roster=None) -> Path:
    """Canvas's gradebook import CSV of ``assignments`` (see the module's description).

    Parameters
    ----------
    rows : list of GradebookRow
        The gradebook's current rows (overrides applied).
    assignments : list of Assignment
        The assignments to export, each a column headed by its title.
    roster : Roster, optional
        The class list (its SIS ids and sections, and who is listed).
    """
    scores = scores_by_student(rows, roster)
    table = [[*CANVAS_ID_COLUMNS, *(a.title for a in assignments)],
             [POINTS_POSSIBLE, "", "", "", "", *(number(points_possible(a)) for a in assignments)]]
    for student in class_students(rows, roster):
        table.append([canvas_name(student), "", student.sis_id, student.id, student.section,
                      *(number(scores.get((student.id, a.id), 0.0)) for a in assignments)])
    return _write(path, table)


def write_moodle(rows: list[GradebookRow], assignments, path: Path, roster=None) -> Path:
    """Moodle's grade import CSV of ``assignments`` (see the module's description)."""
    scores = scores_by_student(rows, roster)
    table = [[*MOODLE_ID_COLUMNS, *(a.title for a in assignments)]]
    for student in class_students(rows, roster):
        table.append([student.id, student.sis_id, student.email, *split_name(student.name),
                      *(number(scores.get((student.id, a.id), 0.0)) for a in assignments)])
    return _write(path, table)
