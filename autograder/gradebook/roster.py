"""The class list: ``roster.csv`` (named by course.yml's ``roster``), and the class as the roster sees it.

The file has the columns ``id, name, email, sis_id, section``. ``id`` is the student id the
grader knows (the name of the student's entry in a class folder); it is required and unique.
``email`` and ``sis_id`` (the registrar's id) are optional and unique where given; ``name`` and
``section`` are free text. Every problem is an error naming the line: a roster that is almost
right would silently give some students 0.

:func:`class_rows` puts a roster next to the gradebook rows of one assignment: one row per
roster student (a student with no row has *no submission*, and scores 0), and the ids of the
rows that belong to no roster student.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

from autograder.gradebook.csv_input import ClassFileError, Line, beside_course, read_lines, student_key
from autograder.gradebook.reasons import NO_SUBMISSION  # the status of a row of no submission (never stored)
from autograder.gradebook.store import GradebookRow

#: What the CSV's ``roster`` column says of an entry the roster does not list (the instructor's file, not feedback).
NOT_IN_ROSTER = "not in roster"
#: The roster's columns, in the order the file is documented with.
COLUMNS = ("id", "name", "email", "sis_id", "section")
#: An e-mail address as a roster can hold it: one ``@`` with text on both sides, no spaces.
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+$")


@dataclass(frozen=True)
class RosterStudent:
    """One student of the roster (empty strings for what the roster leaves out)."""

    id: str
    name: str = ""
    email: str = ""
    sis_id: str = ""
    section: str = ""


@dataclass(frozen=True)
class Roster:
    """The students of the roster, in the file's order."""

    students: tuple[RosterStudent, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_key", {student_key(s.id): s for s in self.students})

    def find(self, student_id: str) -> RosterStudent | None:
        """The roster student with this id (compared in Unicode NFC), or None."""
        return self._by_key.get(student_key(student_id))

    def __contains__(self, student_id: str) -> bool:
        return self.find(student_id) is not None

    @property
    def ids(self) -> list[str]:
        return [student.id for student in self.students]


def _student(line: Line) -> RosterStudent:
    email = line.get("email")
    if email and not _EMAIL.match(email):
        raise ClassFileError(f"{line.where}: {email!r} is not an e-mail address")
    return RosterStudent(line.required("id"), line.get("name"), email, line.get("sis_id"), line.get("section"))


def _check_unique(student: RosterStudent, where: str, seen: dict[tuple[str, str], str]) -> None:
    for column, value in (("id", student_key(student.id)), ("email", student.email.casefold()), ("sis_id", student.sis_id)):
        if not value:
            continue
        if (column, value) in seen:
            raise ClassFileError(f"{where}: {column} {value!r} is already the {column} of {seen[(column, value)]}")
        seen[(column, value)] = where


def read_roster(path: Path) -> Roster:
    """The roster at ``path``.

    Raises
    ------
    ClassFileError
        Naming the file and line of the first problem: a missing or unknown column, an empty
        id, an id, e-mail or SIS id used twice, an e-mail that is not one.
    """
    students, seen = [], {}
    for line in read_lines(Path(path), COLUMNS):
        student = _student(line)
        _check_unique(student, line.where, seen)
        students.append(student)
    return Roster(tuple(students))


def course_roster(course, course_file: Path | str) -> Roster | None:
    """The roster course.yml names (its ``roster`` key, beside the course file), or None when it names none.

    Raises
    ------
    ClassFileError
        When the named file is missing or wrong.
    """
    return read_roster(beside_course(course_file, course.roster)) if course.roster else None


def no_submission_row(student: RosterStudent, assignment) -> GradebookRow:
    """The row of a roster student who handed nothing in for ``assignment``: 0 points, status ``no submission``."""
    from autograder.gradebook.written_scores import points_possible

    return GradebookRow(
        student=student.id, assignment=assignment.id, content_hash="", grader_version="", status=NO_SUBMISSION,
        score=0.0, max_score=points_possible(assignment), raw_score=0.0, error=None, diagnoses=(), tests="[]",
        isolation="not started", days_late=0, submitted_at=None, graded_at="", execution_time=0.0,
        report=json.dumps({"no_submission": True}),
    )


@dataclass(frozen=True)
class ClassRows:
    """One assignment's rows as the roster sees them.

    Attributes
    ----------
    rows : list of GradebookRow
        One per roster student, in roster order (:func:`no_submission_row` for those with none),
        then the rows of students not in the roster, sorted.
    not_in_roster : list of str
        The ids of those last rows.
    """

    rows: list[GradebookRow]
    not_in_roster: list[str]


def class_rows(roster: Roster, rows: list[GradebookRow], assignment) -> ClassRows:
    """The gradebook rows of ``assignment`` with a row for every roster student (see :class:`ClassRows`).

    A row whose student id is a roster id spelled in another Unicode form is the roster
    student's row, and carries the roster's spelling.
    """
    own = {}
    strangers = []
    for row in (r for r in rows if r.assignment == assignment.id):
        student = roster.find(row.student)
        if student is None or student.id in own:  # a second spelling of one id is kept, and listed
            strangers.append(row)
        else:
            own[student.id] = replace(row, student=student.id)
    listed = [own.get(student.id) or no_submission_row(student, assignment) for student in roster.students]
    strangers.sort(key=lambda row: row.student)
    return ClassRows(listed + strangers, [row.student for row in strangers])


def with_roster(roster: Roster | None, rows: list[GradebookRow], assignments) -> tuple[list[GradebookRow], list[str]]:
    """Every assignment's rows with the roster's (:func:`class_rows`), and the ids not in it; the rows as they are without one."""
    if roster is None:
        return rows, []
    joined, strangers = [], {}
    for assignment in assignments:
        seen = class_rows(roster, rows, assignment)
        joined += seen.rows
        strangers.update(dict.fromkeys(seen.not_in_roster))
    return joined, sorted(strangers)


#: Student ids a line of the batch summary names before "and N more".
SHOWN_IDS = 10


def _listed(students: list[str]) -> str:
    from autograder.student_text import clean_name

    shown = ", ".join(clean_name(student) for student in students[:SHOWN_IDS])
    return shown + (f" and {len(students) - SHOWN_IDS} more" if len(students) > SHOWN_IDS else "")


def roster_warnings(roster: Roster, students: list[str], roster_file: str = "roster.csv") -> list[str]:
    """What a batch tells the instructor about its entries and the roster (empty when they match).

    Parameters
    ----------
    students : list of str
        The student ids of the class folder's entries.
    roster_file : str
        The roster's name in course.yml, for the messages.
    """
    strangers = sorted(s for s in students if s not in roster)
    entered = {student_key(s) for s in students}
    absent = [s.id for s in roster.students if student_key(s.id) not in entered]
    lines = []
    if strangers:
        lines.append(f"warning: {len(strangers)} entries are not in {roster_file} (graded, and listed as not in the "
                     f"roster): {_listed(strangers)}")
    if absent:
        lines.append(f"{len(absent)} students of {roster_file} have no entry ({NO_SUBMISSION}: 0 points): {_listed(absent)}")
    return lines
