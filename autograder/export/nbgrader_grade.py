"""Our engine on nbgrader's submissions: ``submitted/`` graded in the sandbox, scores and feedback written back.

``attn-course nbgrader-grade ASSIGNMENT --nbgrader-dir DIR`` grades every
``submitted/<student>/<assignment>/<notebook>`` of an nbgrader course directory made by
``attn-course export nbgrader`` (and released with ``nbgrader generate_assignment``, which puts the
assignment in ``gradebook.db``) with ``attn-course grade``'s engine: the sandbox, error carried
forward, diagnoses, the import policy and the late policy (the time in nbgrader's
``timestamp.txt``, against course.yml's due date). It writes the results through nbgrader's own
API (:class:`nbgrader.api.Gradebook`): each grade cell's ``auto_score`` is its question's score
(the import policy's penalty applied per question, as the in-kernel cells apply it), each
solution cell's ``auto_comment`` holds the question's feedback with its diagnoses, and the late
penalty is the submission notebook's ``late_submission_penalty``, so nbgrader's total (and its
``export``) is our score. ``feedback/<student>/<assignment>/<notebook>.html`` is our HTML report.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from autograder.config import Course
from autograder.errors import GraderError
from autograder.export.nbgrader import nbgrader_assignment
from autograder.export.notebooks import GRADE_ID_PREFIX
from autograder.grade.result import GradeResult
from autograder.languages import localized_file_name

GRADEBOOK_FILE = "gradebook.db"
TIMESTAMP_FILE = "timestamp.txt"


@dataclass(frozen=True)
class Submitted:
    """One notebook in nbgrader's ``submitted/``: the student, nbgrader's assignment, the file, when it was handed in."""

    student: str
    assignment: str
    path: Path
    at: dt.datetime | None


def _timestamp(folder: Path) -> dt.datetime | None:
    """The time in nbgrader's ``timestamp.txt`` (UTC when it names no zone), else None.

    Raises
    ------
    GraderError
        When the file does not hold a time.
    """
    path = folder / TIMESTAMP_FILE
    if not path.is_file():
        return None
    from nbgrader.utils import parse_utc

    try:
        return parse_utc(path.read_text(encoding="utf-8").strip()[:100]).replace(tzinfo=dt.timezone.utc)
    except (ValueError, OverflowError) as error:
        raise GraderError(f"{path} does not hold a time ({error})") from None


def submitted_notebooks(course: Course, course_dir: Path, assignment_id: str) -> list[Submitted]:
    """Every submitted notebook of ``assignment_id`` (each language's nbgrader assignment), by student."""
    assignment = course.assignment(assignment_id)
    first = course.languages[0]
    found = []
    root = course_dir / "submitted"
    for student_dir in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        for language in course.languages:
            name = nbgrader_assignment(assignment_id, language, first)
            path = student_dir / name / localized_file_name(assignment.notebook, language, first)
            if path.is_file():
                found.append(Submitted(student_dir.name, name, path, _timestamp(path.parent)))
    return found


def _policy_keep(course: Course, result: GradeResult) -> float:
    """The share of each question's score the import policy leaves (1 without a violation)."""
    return 1.0 - course.defaults.disallowed_import_penalty if result.import_violations else 1.0


def write_gradebook(course: Course, course_dir: Path, entry: Submitted, result: GradeResult, language: str,
                    extension: dt.timedelta = dt.timedelta(0)) -> None:
    """Write one result into nbgrader's ``gradebook.db``: grades, comments with diagnoses, the late penalty, the
    assignment's due date (course.yml's, when nbgrader has none) and the student's extension (the course's file).

    Raises
    ------
    GraderError
        When the gradebook does not hold the assignment (``nbgrader generate_assignment`` first).
    """
    from nbgrader.api import Gradebook, MissingEntry

    from autograder.report.text import question_feedback

    notebook = entry.path.stem
    keep = _policy_keep(course, result)
    with Gradebook(f"sqlite:///{course_dir / GRADEBOOK_FILE}") as gradebook:
        try:
            assignment = gradebook.find_assignment(entry.assignment)
        except MissingEntry:
            raise GraderError(f"{course_dir / GRADEBOOK_FILE} has no assignment {entry.assignment}: "
                              "run `nbgrader generate_assignment` first") from None
        if assignment.duedate is None:  # nbgrader keeps naive UTC times
            assignment.duedate = course.assignment(result.assignment_id).due.astimezone(dt.timezone.utc).replace(tzinfo=None)
        gradebook.update_or_create_student(entry.student)
        try:
            submission = gradebook.find_submission(entry.assignment, entry.student)
        except MissingEntry:
            submission = gradebook.add_submission(entry.assignment, entry.student, **({"timestamp": entry.at} if entry.at else {}))
        submission.extension = extension if extension > dt.timedelta(0) else None
        scored = 0.0
        for question in result.questions:
            grade = gradebook.find_grade(GRADE_ID_PREFIX + question.function, notebook, entry.assignment, entry.student)
            grade.auto_score = round(question.score * keep, 4)
            scored += grade.auto_score
            comment = gradebook.find_comment(question.function, notebook, entry.assignment, entry.student)
            comment.auto_comment = "\n".join(question_feedback(question, language))
        submitted = gradebook.find_submission_notebook(notebook, entry.assignment, entry.student)
        submitted.late_submission_penalty = max(0.0, round(scored - result.score, 4))
        gradebook.db.commit()


def write_feedback(course_dir: Path, entry: Submitted, result: GradeResult, language: str) -> Path:
    """``feedback/<student>/<assignment>/<notebook>.html``: our HTML report of the result."""
    from autograder.report.html import to_html

    target = course_dir / "feedback" / entry.student / entry.assignment / f"{entry.path.stem}.html"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(to_html(result, language), encoding="utf-8")
    return target


def grade_submitted(course: Course, course_dir: Path, assignment_id: str, language: str) -> list[tuple[Submitted, GradeResult]]:
    """Grade every submitted notebook of ``assignment_id`` in the sandbox, then write gradebook.db and feedback/.

    Raises
    ------
    GraderError
        When the grader cannot run, or the gradebook lacks the assignment.
    """
    from autograder.grade.api import grade_submission
    from autograder.grade.submitted import SubmissionTime, TimeSource

    from autograder.gradebook.extensions import course_extensions, with_due

    extensions = course_extensions(course, course.layout.course_file)
    graded = []
    for entry in submitted_notebooks(course, course_dir, assignment_id):
        when = SubmissionTime(entry.at, TimeSource.NBGRADER if entry.at else TimeSource.NONE)
        due = extensions.due_for(entry.student, course.assignment(assignment_id))
        result = grade_submission(with_due(course, assignment_id, due), assignment_id, entry.path, submitted=when)
        write_gradebook(course, course_dir, entry, result, language, extension=due - course.assignment(assignment_id).due)
        write_feedback(course_dir, entry, result, language)
        graded.append((entry, result))
    return graded
