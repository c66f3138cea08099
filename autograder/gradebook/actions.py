"""What ``attn-course gradebook`` writes besides the class table: the detailed and LMS files.

The command's options are declared in :mod:`autograder.commands.gradebook`; its work is here.
"""

from __future__ import annotations

from pathlib import Path


def write_lms_files(course, course_file: Path, rows, assignment_id: str | None, *, details: Path | None = None,
                    canvas: Path | None = None, moodle: Path | None = None) -> list[str]:
    """Write the files asked for, from the gradebook's current ``rows``; one line per file written, for the terminal.

    Parameters
    ----------
    details : Path, optional
        A folder: one detailed CSV per assignment (:mod:`autograder.gradebook.details`), ``<id>.csv``.
    canvas, moodle : Path, optional
        Canvas's and Moodle's import CSV (:mod:`autograder.gradebook.lms`).

    Raises
    ------
    ClassFileError
        When the roster course.yml names is missing or wrong.
    """
    from autograder.gradebook.details import write_details
    from autograder.gradebook.lms import write_canvas, write_moodle
    from autograder.gradebook.roster import course_roster

    roster = course_roster(course, course_file)
    assignments = [a for a in course.assignments if assignment_id in (None, a.id)]
    lines = []
    for assignment in assignments if details else ():
        lines.append(f"{assignment.id} details -> {write_details(rows, assignment, details / f'{assignment.id}.csv', roster)}")
    if canvas:
        lines.append(f"Canvas import CSV -> {write_canvas(rows, assignments, canvas, roster)}")
    if moodle:
        lines.append(f"Moodle import CSV -> {write_moodle(rows, assignments, moodle, roster)}")
    return lines


def current_rows(gradebook_path: Path, assignment_id: str | None = None, course=None):
    """The gradebook's current rows with the overrides in force (what every export shows), and every student with a row.

    Given the ``course``, each row's score also holds the manual scores of its written answers
    (:mod:`autograder.gradebook.written_scores`).
    """
    from autograder.gradebook.overrides import OverrideBook, apply_overrides
    from autograder.gradebook.store import Gradebook
    from autograder.gradebook.written_scores import with_written

    with Gradebook(gradebook_path) as book:
        rows, students = book.rows(assignment_id), book.students()
    with OverrideBook(gradebook_path) as overrides:
        rows = apply_overrides(rows, overrides.in_force())
    return (with_written(course, rows, gradebook_path) if course is not None else rows), students


def similarity_sections(course, assignment_id: str | None, folder: Path | None) -> tuple[tuple[str, ...], list[str]]:
    """The class report's similarity section of the class folder ``folder``, and a line per flagged pair for the terminal.

    Raises
    ------
    click.UsageError
        When no single assignment is named (``--assignment``) and the course has more than one.
    """
    import click

    from autograder.similarity.report import assignment_similarity, similarity_section
    from autograder.student_text import clean_name

    if folder is None:
        return (), []
    if assignment_id is None and len(course.assignments) > 1:
        raise click.UsageError("--similarity compares one assignment's class folder: give --assignment")
    assignment = course.assignment(assignment_id or course.assignments[0].id)
    pairs, sources = assignment_similarity(course, assignment, folder)
    lines = [f"similar ({assignment.id}): {clean_name(p.a)} and {clean_name(p.b)}, {p.similarity:.0%} alike (a flag, not a penalty)"
             for p in pairs]
    return (similarity_section(assignment.id, pairs, sources),), lines or [f"similar ({assignment.id}): no pair flagged"]


def report_rows(course, course_file: Path, rows, assignment_id: str | None = None):
    """The class report's rows: with the roster's, every roster student a row per assignment (no submission: 0)."""
    return report_rows_and_strangers(course, course_file, rows, assignment_id)[0]


def report_rows_and_strangers(course, course_file: Path, rows, assignment_id: str | None = None):
    """:func:`report_rows`, and the class report's section naming the entries the roster does not list ("" for none)."""
    from autograder.escape import html_text
    from autograder.gradebook.roster import NOT_IN_ROSTER, course_roster, with_roster
    from autograder.student_text import clean_name

    assignments = [a for a in course.assignments if assignment_id in (None, a.id)]
    joined, strangers = with_roster(course_roster(course, course_file), rows, assignments)
    if not strangers:
        return joined, ""
    names = ", ".join(html_text(clean_name(s)) for s in strangers)
    return joined, (f'<h2>Entries {NOT_IN_ROSTER}</h2><p class="muted">Graded, and in the table below, but '
                    f"{html_text(course.roster)} does not list them ({len(strangers)}): {names}</p>")


def release_feedback(course, course_file: Path, gradebook_path: Path, assignment_id: str, out: Path, language: str,
                     who: str | None = None) -> str:
    """``gradebook release``: publish one assignment's feedback (:func:`autograder.gradebook.release.release`)."""
    import getpass

    from autograder.gradebook.release import release

    rows, students = current_rows(gradebook_path, course.assignment(assignment_id).id, course)
    written = release(course, course_file, rows, assignment_id, out, language, students, who or getpass.getuser())
    return f"released: feedback on {len(written)} submissions of {assignment_id} -> {out}"
