"""Gradebook exports: the class table, the CSV for the registrar, per-student feedback files."""

from __future__ import annotations

import csv
import hashlib
import json
import re
from pathlib import Path

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


def write_feedback(rows: list[GradebookRow], out_dir: Path) -> list[Path]:
    """Per student and assignment: Gradescope ``results.json`` and a readable ``feedback.txt``."""
    written = []
    for row in rows:
        folder = out_dir / safe_name(row.student) / row.assignment
        folder.mkdir(parents=True, exist_ok=True)
        report = row.report_dict
        gradescope = report.get("gradescope") or {"score": 0.0, "output": row.error or "not graded", "tests": []}
        (folder / "results.json").write_text(json.dumps(gradescope, indent=2) + "\n", encoding="utf-8")
        (folder / "feedback.txt").write_text(clean_text(report.get("text") or f"Not graded: {row.error}\n"), encoding="utf-8")
        written.append(folder)
    return written
