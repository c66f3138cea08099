"""Gradebook exports: the class table, the CSV for the registrar, per-student feedback files.

``safe_name`` (a student's folder name, :mod:`autograder.gradebook.folders`) is imported from here too.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

from autograder.escape import csv_cell, html_text, json_document
from autograder.grade.record import from_record
from autograder.report.formats import FORMATS
from autograder.gradebook.folders import feedback_folders, safe_name  # noqa: F401 - safe_name is imported from here
from autograder.report.text import GRADESCOPE_TEXT
from autograder.gradebook.store import GradebookRow
from autograder.gradebook.written_feedback import with_written
from autograder.i18n import msg, render
from autograder.languages import SOURCE_LANGUAGE
from autograder.scoring import SCORE_DECIMALS
from autograder.student_text import clean_name

#: The file of the feedback folder that maps each student to their folder.
STUDENTS_CSV = "students.csv"


def score_table(rows: list[GradebookRow], assignment_ids: list[str]) -> list[dict]:
    """One dict per student: ``student``, one score per assignment (None when missing), ``total``."""
    students: dict[str, dict] = {}
    for row in (r for r in rows if r.assignment in assignment_ids):
        record = students.setdefault(row.student, {"student": row.student, **{a: None for a in assignment_ids}})
        record[row.assignment] = row.score
    for record in students.values():
        record["total"] = round(sum(record[a] or 0.0 for a in assignment_ids), SCORE_DECIMALS)
    return [students[name] for name in sorted(students)]


#: The CSV's column listing the assignments a student has no entry for (they count 0 in the total, and show 0).
MISSING_COLUMN = "missing"


def write_csv(rows: list[GradebookRow], assignment_ids: list[str], path: Path, roster=None) -> Path:
    """The class table as CSV: a column per assignment, the total, and the assignments missing.

    A missing assignment counts 0 in the total, so its cell says 0 too, and the last column
    names it; no cell is a spreadsheet formula.

    Parameters
    ----------
    roster : Roster, optional
        The class list (:mod:`autograder.gradebook.roster`): every roster student then has a row,
        with their name, e-mail, SIS id and section, and a last column ``roster`` says "not in
        roster" of an entry whose student it does not list.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    extra = ROSTER_COLUMNS if roster is not None else ()
    table = score_table(rows, assignment_ids)
    if roster is not None:
        table = _with_roster_students(table, roster, assignment_ids)
    with path.open("w", newline="", encoding="utf-8") as handle:
        fields = ["student", *extra[:-1], *assignment_ids, "total", MISSING_COLUMN, *extra[-1:]]
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writerow({name: csv_cell(name) for name in writer.fieldnames})
        for record in table:
            missing = " ".join(a for a in assignment_ids if record[a] is None)
            cells = {k: (0.0 if v is None else v) for k, v in record.items()}
            writer.writerow({k: csv_cell(v) for k, v in {**cells, MISSING_COLUMN: missing}.items()})
    return path


#: The columns a roster adds to the CSV: its own before the scores, and whether the student is in it, last.
ROSTER_COLUMNS = ("name", "email", "sis_id", "section", "roster")
from autograder.gradebook.roster import NOT_IN_ROSTER  # noqa: E402 - the instructor's column value, kept beside the roster


def _with_roster_students(table: list[dict], roster, assignment_ids: list[str]) -> list[dict]:
    """``table`` (of :func:`score_table`) with a record for every roster student, in roster order, and the roster's columns.

    Entries of students the roster does not list follow, marked :data:`NOT_IN_ROSTER`.
    """
    owned, strangers = {}, []
    for record in table:
        student = roster.find(record["student"])
        if student is None or student.id in owned:
            strangers.append({**record, **dict.fromkeys(ROSTER_COLUMNS, ""), "roster": NOT_IN_ROSTER})
        else:
            owned[student.id] = record
    records = []
    for student in roster.students:
        record = owned.get(student.id) or {**{a: None for a in assignment_ids}, "total": 0.0}
        records.append({**record, "student": student.id, "name": student.name, "email": student.email,
                        "sis_id": student.sis_id, "section": student.section, "roster": ""})
    return records + strangers


def _feedback_result(row: GradebookRow):
    """The row's GradeResult, from its canonical record; None for a row the grader could not grade."""
    record = row.report_dict.get("result")
    if row.status != "graded" or not record:
        return None
    try:
        return from_record(record)
    except (KeyError, TypeError):
        return None


def write_students_csv(rows: list[GradebookRow], out_dir: Path, folders: dict[str, str] | None = None) -> Path:
    """``students.csv`` in the feedback folder: each student id, the folder holding their feedback (same ids as the CSV).

    Parameters
    ----------
    folders : dict, optional
        ``{student: folder name}`` (:func:`~autograder.gradebook.folders.feedback_folders` of the rows by default).
    """
    folders = feedback_folders(row.student for row in rows) if folders is None else folders
    path = out_dir / STUDENTS_CSV
    out_dir.mkdir(parents=True, exist_ok=True)
    # every student with a folder here: those of these rows, and those an earlier write (another assignment's
    # release into the same folder) left, whose folder names are the same by construction
    listed = {row.student for row in rows} | {s for s, name in folders.items() if (out_dir / name).is_dir()}
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "folder"])
        for student in sorted(listed):
            writer.writerow([csv_cell(student), csv_cell(folders[student])])
    return path


def write_feedback(rows: list[GradebookRow], out_dir: Path, language: str = SOURCE_LANGUAGE,
                   roster: Iterable[str] = ()) -> list[Path]:
    """Per student and assignment, every student-facing format of the registry (feedback.txt, feedback.html,
    results.json, ...) in ``language``, and ``students.csv`` mapping students to folders.

    Each student has a folder of their own, whatever the other ids of the class
    (:func:`~autograder.gradebook.folders.feedback_folders`).

    Parameters
    ----------
    roster : iterable of str
        Every student of the class, when ``rows`` are some of them (one assignment's): the
        folders are chosen among them all, so a student's folder is the same in every export.

    Returns
    -------
    list of Path
        The folders written, one per student and assignment (``<student folder>/<assignment>``), each once.
    """
    folders = feedback_folders([*roster, *(row.student for row in rows)])
    write_students_csv(rows, out_dir, folders)
    written: dict[Path, None] = {}
    for row in rows:
        folder = out_dir / folders[row.student] / row.assignment
        folder.mkdir(parents=True, exist_ok=True)
        result = _feedback_result(row)
        for report_format in (f for f in FORMATS.values() if f.feedback_file):
            text = report_format.render(result, language) if result is not None else _not_graded(report_format.name, row, language)
            text = with_written(report_format.name, text, row, language)
            (folder / report_format.feedback_file).write_text(text, encoding="utf-8")
        written[folder] = None
    return list(written)


#: Names of other folders a note lists before "and N more".
SHOWN_OTHERS = 10


def feedback_lines(written: list[Path], out_dir: Path) -> list[str]:
    """What an export of feedback tells the instructor: how many submissions, in how many student folders, where.

    Folders of ``out_dir`` that this export did not write (an earlier export's) are named in a note.

    Parameters
    ----------
    written : list of Path
        What :func:`write_feedback` returned.
    """
    students = {folder.parent for folder in written}
    lines = [f"feedback on {len(written)} submissions in {len(students)} student folders -> {out_dir} "
             f"({STUDENTS_CSV} names each student's folder)"]
    others = sorted(p.name for p in out_dir.iterdir() if p.is_dir() and p not in students) if out_dir.is_dir() else []
    if others:
        listed = ", ".join(clean_name(name) for name in others[:SHOWN_OTHERS])
        more = f" and {len(others) - SHOWN_OTHERS} more" if len(others) > SHOWN_OTHERS else ""
        lines.append(f"note: {len(others)} other folders in {out_dir} were not written by this export: {listed}{more}")
    return lines


def _not_graded(format_name: str, row: GradebookRow, language: str = SOURCE_LANGUAGE) -> str:
    """What a student receives for an entry that could not be graded, in one format and ``language``.

    The grader's error is the instructor's (English) text, quoted as it is.
    """
    message = row.error or render(msg("not graded"), language)
    if format_name == "gradescope":
        output = render(msg("Not graded: {error}", error=message), language)
        return json_document({"score": 0.0, "output": output, "output_format": GRADESCOPE_TEXT, "tests": []})
    if format_name == "html":
        from autograder.report.page import page

        title = render(msg("{assignment}: not graded", assignment=row.assignment), language)
        return page(title, f"<h1>{html_text(row.assignment)}</h1><p>{html_text(render(msg('Not graded:'), language))}</p>"
                           f"<pre>{html_text(message)}</pre>", lang=language)
    return render(msg("Not graded: {error}", error=message), language) + "\n"
