"""Gradebook exports: the class table, the CSV for the registrar, per-student feedback files."""

from __future__ import annotations

import csv
import hashlib
import json
import re
from pathlib import Path

from autograder.grade.record import from_record
from autograder.grade.report import FORMATS
from autograder.gradebook.store import GradebookRow
from autograder.scoring import SCORE_DECIMALS
from autograder.student_text import clean_text, spreadsheet_safe

#: Hex digits of the hash that keeps changed names apart.
NAME_HASH_CHARS = 8
#: Characters allowed in a folder name made from a student id.
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(student: str) -> str:
    """A file-system-safe folder name for a student id; changed names get a short hash so two ids never share one."""
    cleaned = _UNSAFE.sub("_", student).strip("._") or "student"
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


def write_csv(rows: list[GradebookRow], assignment_ids: list[str], path: Path) -> Path:
    """The class table as CSV: a column per assignment, then the total; no cell is a spreadsheet formula."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=["student", *assignment_ids, "total"])
        writer.writeheader()
        for record in score_table(rows, assignment_ids):
            writer.writerow({k: ("" if v is None else spreadsheet_safe(v)) for k, v in record.items()})
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


def write_feedback(rows: list[GradebookRow], out_dir: Path) -> list[Path]:
    """Per student and assignment, every student-facing format of the registry (results.json, feedback.txt, ...)."""
    written = []
    for row in rows:
        folder = out_dir / safe_name(row.student) / row.assignment
        folder.mkdir(parents=True, exist_ok=True)
        result = _feedback_result(row)
        for report_format in (f for f in FORMATS.values() if f.feedback_file):
            text = report_format.render(result) if result is not None else _not_graded(report_format.name, row)
            (folder / report_format.feedback_file).write_text(text, encoding="utf-8")
        written.append(folder)
    return written


def _not_graded(format_name: str, row: GradebookRow) -> str:
    """What a student receives for an entry that could not be graded, in one format."""
    message = clean_text(row.error or "not graded")
    if format_name == "gradescope":
        return json.dumps({"score": 0.0, "output": f"Not graded: {message}", "tests": []}, indent=2) + "\n"
    return f"Not graded: {message}\n"
