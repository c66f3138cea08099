"""Extensions and accommodations: ``extensions.csv`` (named by course.yml's ``extensions``).

The file has the columns ``student, assignment, due, extra_days, reason``. ``student`` is a
student id (a roster id, or what the class folder names the entry; on Gradescope, also the
student's e-mail or SIS id); ``assignment`` is an id of course.yml or ``*`` (every assignment:
an accommodation). Each row gives exactly one of ``due`` (a new due date, ISO 8601 with time
zone; not with ``*``) and ``extra_days`` (a number of days, fractions allowed, added to the
assignment's due date). ``reason`` is free text for the instructor.

A row for the assignment replaces the student's ``*`` row for it. The late policy (grace
period, penalty per day, cap) then runs from the student's own due date, on every path that
grades: a class folder (:mod:`autograder.batch.worker`), one submission with ``--student``
or Gradescope's ``submission_metadata.json`` (whose users are matched by e-mail and SIS id).
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from pathlib import Path

from autograder.gradebook.csv_input import ClassFileError, Line, beside_course, read_lines, student_key

#: The columns, in the order the file is documented with.
COLUMNS = ("student", "assignment", "due", "extra_days", "reason")
#: The assignment of a row that applies to every assignment.
EVERY_ASSIGNMENT = "*"
#: Most extra days one row may give (a year: anything more is a typing error).
MAX_EXTRA_DAYS = 366


@dataclass(frozen=True)
class Extension:
    """One row: a student's own due date (``due``) or extra time (``extra_days``) for one assignment or all."""

    student: str
    assignment: str
    due: dt.datetime | None = None
    extra_days: float = 0.0
    reason: str = ""

    def applied_to(self, due: dt.datetime) -> dt.datetime:
        """The student's due date, given the assignment's."""
        return self.due if self.due is not None else due + dt.timedelta(days=self.extra_days)


@dataclass(frozen=True)
class Extensions:
    """Every row of the file, found by (student, assignment)."""

    rows: tuple[Extension, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_key", {(student_key(e.student), e.assignment): e for e in self.rows})

    def find(self, student: str, assignment_id: str) -> Extension | None:
        """The row that sets ``student``'s due date of ``assignment_id`` (its own, else their ``*`` row), or None."""
        key = student_key(student)
        return self._by_key.get((key, assignment_id)) or self._by_key.get((key, EVERY_ASSIGNMENT))

    def due_for(self, students: list[str] | str, assignment) -> dt.datetime:
        """The due date of ``assignment`` for ``students`` (one id, or several spellings or group members: the latest)."""
        ids = [students] if isinstance(students, str) else students
        dues = [row.applied_to(assignment.due) for row in (self.find(s, assignment.id) for s in ids) if row]
        return max(dues, default=assignment.due)


def _due(line: Line) -> dt.datetime | None:
    text = line.get("due")
    if not text:
        return None
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        raise ClassFileError(f"{line.where}: due {text!r} is not an ISO 8601 time") from None
    if moment.tzinfo is None:
        raise ClassFileError(f"{line.where}: due {text!r} needs a time zone, e.g. 2027-03-10T23:59:00+08:00")
    return moment


def _extra_days(line: Line) -> float:
    text = line.get("extra_days")
    if not text:
        return 0.0
    try:
        days = float(text)
    except ValueError:
        raise ClassFileError(f"{line.where}: extra_days {text!r} is not a number") from None
    if not math.isfinite(days) or not 0 < days <= MAX_EXTRA_DAYS:
        raise ClassFileError(f"{line.where}: extra_days {text!r} must be more than 0 and at most {MAX_EXTRA_DAYS}")
    return days


def _extension(line: Line, assignment_ids: set[str]) -> Extension:
    student, assignment = line.required("student"), line.required("assignment")
    if assignment != EVERY_ASSIGNMENT and assignment not in assignment_ids:
        raise ClassFileError(f"{line.where}: no assignment {assignment!r} in course.yml (known: "
                             f"{', '.join(sorted(assignment_ids))}, or {EVERY_ASSIGNMENT} for all)")
    due, extra = _due(line), _extra_days(line)
    if (due is None) == (not extra):
        raise ClassFileError(f"{line.where}: give one of due and extra_days")
    if due is not None and assignment == EVERY_ASSIGNMENT:
        raise ClassFileError(f"{line.where}: a due date is for one assignment; give extra_days for {EVERY_ASSIGNMENT}")
    return Extension(student, assignment, due, extra, line.get("reason"))


def read_extensions(path: Path, course) -> Extensions:
    """The extensions at ``path``, checked against ``course``'s assignments.

    Raises
    ------
    ClassFileError
        Naming the file and line of the first problem: a missing or unknown column, an empty
        student or assignment, an unknown assignment, neither or both of due and extra_days,
        a due date without time zone, a second row for one student and assignment.
    """
    rows, seen = [], {}
    for line in read_lines(Path(path), COLUMNS[:2], COLUMNS[2:]):
        row = _extension(line, {a.id for a in course.assignments})
        key = (student_key(row.student), row.assignment)
        if key in seen:
            raise ClassFileError(f"{line.where}: a second row for {row.student} and {row.assignment} (the first is {seen[key]})")
        seen[key] = line.where
        rows.append(row)
    return Extensions(tuple(rows))


def course_extensions(course, course_file: Path | str) -> Extensions:
    """The extensions course.yml names (beside the course file); none when it names no file.

    Raises
    ------
    ClassFileError
        When the named file is missing or wrong.
    """
    return read_extensions(beside_course(course_file, course.extensions), course) if course.extensions else Extensions()


def with_due(course, assignment_id: str, due: dt.datetime):
    """``course`` with ``assignment_id`` due at ``due`` (the same object when it already is): what grading is given."""
    assignment = course.assignment(assignment_id)
    if due == assignment.due:
        return course
    assignments = tuple(a.model_copy(update={"due": due}) if a.id == assignment_id else a for a in course.assignments)
    return course.model_copy(update={"assignments": assignments})


def extended_course(course, course_file: Path | str, assignment_id: str, students: list[str]):
    """``course`` as it grades ``students``' submission of ``assignment_id``: their own due date (see :func:`with_due`)."""
    if not students or not course.extensions:
        return course
    due = course_extensions(course, course_file).due_for(students, course.assignment(assignment_id))
    return with_due(course, assignment_id, due)


def _metadata_users(metadata: Path) -> list[dict]:
    import json

    try:
        users = json.loads(Path(metadata).read_text(encoding="utf-8")).get("users") or []
    except (OSError, ValueError, AttributeError):
        return []  # the submission time's reader (autograder.grade.submitted) names what is wrong with the file
    return [user for user in users if isinstance(user, dict)] if isinstance(users, list) else []


def gradescope_students(metadata: Path, roster=None) -> list[str]:
    """Who handed in a Gradescope submission: each user's e-mail and SIS id, and the roster ids they match.

    Parameters
    ----------
    metadata : Path
        Gradescope's ``submission_metadata.json`` (its ``users``: one per member of a group).
    roster : Roster, optional
        The class list, whose ``email`` and ``sis_id`` columns name the users' roster ids.

    Returns
    -------
    list of str
        Every id an extension may be listed under (empty when the file names no user).
    """
    ids = []
    for user in _metadata_users(metadata):
        email, sid = str(user.get("email") or "").strip(), str(user.get("sid") or "").strip()
        ids += [value for value in (email, sid) if value]
        for student in roster.students if roster is not None else ():
            if (email and student.email.casefold() == email.casefold()) or (sid and student.sis_id == sid):
                ids.append(student.id)
    return ids


def submission_course(course, course_file: Path | str, assignment_id: str, student: str | None, metadata: Path | None):
    """``course`` as it grades one submission (``attn-course grade`` of one file): with its student's due date.

    The student is ``student`` (``--student``), or the users of Gradescope's ``metadata``.

    Raises
    ------
    ClassFileError
        When the extensions file (or, for Gradescope, the roster) course.yml names is missing or wrong.
    """
    if not course.extensions or (student is None and metadata is None):
        return course
    from autograder.gradebook.roster import course_roster

    students = [student] if student else gradescope_students(metadata, course_roster(course, course_file))
    return extended_course(course, course_file, assignment_id, students)
