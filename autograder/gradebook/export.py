"""Gradebook exports: the class table, the CSV for the registrar, per-student feedback files."""

from __future__ import annotations

import csv
import hashlib
import re
import unicodedata
from pathlib import Path

from autograder.escape import csv_cell, html_text, json_document
from autograder.grade.record import from_record
from autograder.grade.formats import FORMATS
from autograder.grade.report import GRADESCOPE_TEXT
from autograder.gradebook.store import GradebookRow
from autograder.i18n import msg, render
from autograder.languages import SOURCE_LANGUAGE
from autograder.scoring import SCORE_DECIMALS

#: Hex digits of the hash that keeps changed names apart.
NAME_HASH_CHARS = 8
#: Characters allowed in a folder name made from a student id: letters and digits of any script, ``. _ -``.
_UNSAFE = re.compile(r"[^\w.-]+")
#: Longest folder name kept from a student id (before the hash), in characters.
MAX_NAME_CHARS = 64
#: The file of the feedback folder that maps each student to their folder.
STUDENTS_CSV = "students.csv"


def safe_name(student: str) -> str:
    """A file-system-safe folder name for a student id, readable in any script (王小明 and Émile keep their names).

    Letters and digits of every script, ``.``, ``_`` and ``-`` stay; anything else (slashes,
    spaces, controls) becomes ``_``. A name that had to change gets a short hash, so two ids
    never share a folder; :data:`STUDENTS_CSV` maps every folder back to its student.
    """
    normal = unicodedata.normalize("NFC", student)
    cleaned = _UNSAFE.sub("_", normal).strip("._")[:MAX_NAME_CHARS] or "student"
    if cleaned == student:
        return cleaned
    return f"{cleaned}-{hashlib.sha256(student.encode('utf-8', 'backslashreplace')).hexdigest()[:NAME_HASH_CHARS]}"


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


def write_csv(rows: list[GradebookRow], assignment_ids: list[str], path: Path) -> Path:
    """The class table as CSV: a column per assignment, the total, and the assignments missing.

    A missing assignment counts 0 in the total, so its cell says 0 too, and the last column
    names it; no cell is a spreadsheet formula.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=["student", *assignment_ids, "total", MISSING_COLUMN])
        writer.writerow({name: csv_cell(name) for name in writer.fieldnames})
        for record in score_table(rows, assignment_ids):
            missing = " ".join(a for a in assignment_ids if record[a] is None)
            cells = {k: (0.0 if v is None else v) for k, v in record.items()}
            writer.writerow({k: csv_cell(v) for k, v in {**cells, MISSING_COLUMN: missing}.items()})
    return path


def _feedback_result(row: GradebookRow):
    """The row's GradeResult, from its canonical record; None for a row the grader could not grade."""
    record = row.report_dict.get("result")
    if row.status != "graded" or not record:
        return None
    try:
        return from_record(record)
    except (KeyError, TypeError):
        return None


def write_students_csv(rows: list[GradebookRow], out_dir: Path) -> Path:
    """``students.csv`` in the feedback folder: each student id, the folder holding their feedback (same ids as the CSV)."""
    path = out_dir / STUDENTS_CSV
    out_dir.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "folder"])
        for student in sorted({row.student for row in rows}):
            writer.writerow([csv_cell(student), csv_cell(safe_name(student))])
    return path


def write_feedback(rows: list[GradebookRow], out_dir: Path, language: str = SOURCE_LANGUAGE) -> list[Path]:
    """Per student and assignment, every student-facing format of the registry (feedback.txt, feedback.html,
    results.json, ...) in ``language``, and ``students.csv`` mapping students to folders."""
    written = []
    write_students_csv(rows, out_dir)
    for row in rows:
        folder = out_dir / safe_name(row.student) / row.assignment
        folder.mkdir(parents=True, exist_ok=True)
        result = _feedback_result(row)
        for report_format in (f for f in FORMATS.values() if f.feedback_file):
            text = report_format.render(result, language) if result is not None else _not_graded(report_format.name, row, language)
            (folder / report_format.feedback_file).write_text(text, encoding="utf-8")
        written.append(folder)
    return written


def _not_graded(format_name: str, row: GradebookRow, language: str = SOURCE_LANGUAGE) -> str:
    """What a student receives for an entry that could not be graded, in one format and ``language``.

    The grader's error is the instructor's (English) text, quoted as it is.
    """
    message = row.error or render(msg("not graded"), language)
    if format_name == "gradescope":
        output = render(msg("Not graded: {error}", error=message), language)
        return json_document({"score": 0.0, "output": output, "output_format": GRADESCOPE_TEXT, "tests": []})
    if format_name == "html":
        from autograder.grade.html_page import page

        title = render(msg("{assignment}: not graded", assignment=row.assignment), language)
        return page(title, f"<h1>{html_text(row.assignment)}</h1><p>{html_text(render(msg('Not graded:'), language))}</p>"
                           f"<pre>{html_text(message)}</pre>", lang=language)
    return render(msg("Not graded: {error}", error=message), language) + "\n"
