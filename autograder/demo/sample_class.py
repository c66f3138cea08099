"""A sample class generated from the instructor masters: correct, untouched, buggy and broken entries.

Each buggy student is the solution with one realistic edit, held as course data in
``solutions/sample_class.yml`` (the text it replaces and the text it puts there), so the sample
class follows the masters as they change; an edit that no longer applies is an error, caught by
the tests. A course without that file gets the entries every course has (correct, untouched, a
notebook, a zip and the broken ones).
"""

from __future__ import annotations

import functools
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from autograder.build.markers import keep_solutions
from autograder.build.notebook import render_notebook
from autograder.config import Course
from autograder.paths import NOTEBOOK_SOURCE


class SampleClassError(ValueError):
    """A buggy student's edit no longer applies to the master, or the sample class file is not in its form."""


@dataclass(frozen=True)
class BuggyStudent:
    """A student whose module is the solution with ``old`` replaced (once) by ``new``."""

    name: str
    bug: str  # what is wrong, for people reading the demo
    old: str
    new: str


#: The student whose entry is the solution itself.
CORRECT_STUDENT = "ada"
#: The course's sample-class data, beside its masters (``solutions/sample_class.yml``).
SAMPLE_CLASS_FILE = "sample_class.yml"


@dataclass(frozen=True)
class SampleClass:
    """A course's sample class, read from its ``solutions/sample_class.yml`` (empty when it has none).

    Attributes
    ----------
    students : dict of str to tuple of BuggyStudent
        Per assignment id, the buggy students of the demo's class.
    agreement : dict of str to tuple of BuggyStudent
        Per assignment id, more buggy students for the exports' agreement corpus only.
    showcase : tuple of (str, str) or None
        (student, assignment id) whose feedback the demo opens.
    written : dict of str to str
        Who answers the showcase's written questions how: ``full``, ``partial`` and ``hostile`` -> a student.
    """

    students: dict = field(default_factory=dict)
    agreement: dict = field(default_factory=dict)
    showcase: tuple[str, str] | None = None
    written: dict = field(default_factory=dict)


def _students(entries) -> dict[str, tuple[BuggyStudent, ...]]:
    return {str(a): tuple(BuggyStudent(str(s["name"]), str(s["bug"]), str(s["old"]), str(s["new"])) for s in listed or ())
            for a, listed in (entries or {}).items()}


@functools.lru_cache(maxsize=8)
def _read_sample_class(path: Path, stamp: float) -> SampleClass:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    shown = data.get("showcase") or {}
    showcase = (str(shown["student"]), str(shown["assignment"])) if shown else None
    written = {str(role): str(student) for role, student in (data.get("written") or {}).items()}
    return SampleClass(_students(data.get("students")), _students(data.get("agreement")), showcase, written)


def sample_class(layout) -> SampleClass:
    """The sample class of the course at ``layout`` (a :class:`~autograder.layout.CourseDirectory`).

    Raises
    ------
    SampleClassError
        When the file is not in the expected form.
    """
    path = layout.solutions / SAMPLE_CLASS_FILE
    if not path.is_file():
        return SampleClass()
    try:
        return _read_sample_class(path, path.stat().st_mtime)
    except (KeyError, TypeError, AttributeError, yaml.YAMLError) as error:
        raise SampleClassError(f"{path}: not a sample class ({type(error).__name__}: {error})") from None


#: Entries that are not gradable code, with what each is.
BROKEN_ENTRIES = {
    "kim": "an empty folder",
    "lee": "a binary file named like a module",
    "max": "a notebook whose JSON is cut off",
    "nia": "a module with a syntax error",
}


def buggy_source(solution: str, student: BuggyStudent) -> str:
    """The solution with the student's one edit.

    Raises
    ------
    SampleClassError
        When the master no longer holds the text the edit replaces.
    """
    if student.old not in solution:
        raise SampleClassError(f"{student.name}'s edit ({student.bug}) no longer applies: {student.old!r} is not in the master")
    return solution.replace(student.old, student.new, 1)


def _write(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")


def write_sample_class(course: Course, assignment_id: str, out_dir: Path) -> list[str]:
    """Write one entry per student into ``out_dir``; return the student names."""
    assignment = course.assignment(assignment_id)
    masters = course.layout.masters(assignment_id)
    solution = keep_solutions((masters / assignment.module).read_text(encoding="utf-8"))
    module = assignment.module
    _write(out_dir / CORRECT_STUDENT / module, solution)
    _write(out_dir / "ben" / module, (course.layout.release(assignment_id) / module).read_text(encoding="utf-8"))
    notebook = render_notebook((masters / NOTEBOOK_SOURCE).read_text(encoding="utf-8"), solution, questions=assignment.questions)
    _write(out_dir / "gus" / assignment.notebook, notebook)
    with zipfile.ZipFile(out_dir / "olga.zip", "w") as archive:
        archive.writestr(f"olga/{module}", solution)
    for student in sample_class(course.layout).students.get(assignment_id, ()):
        _write(out_dir / student.name / module, buggy_source(solution, student))
    (out_dir / "kim").mkdir(parents=True, exist_ok=True)
    _write(out_dir / "lee.py", b"\x7fELF\x00\x01binary")
    _write(out_dir / "max.ipynb", notebook[: len(notebook) // 2])
    _write(out_dir / "nia.py", solution.replace("def ", "def def ", 1))
    return sorted(p.name.split(".")[0] for p in out_dir.iterdir())
