"""``attn-course grade ASSIGNMENT CLASS_FOLDER``: what tells a class folder from one submission, and its batch.

The batch prints its table and a summary on standard output, progress and warnings on
standard error: entries the class folder's ``submitted_at.csv`` has no row for (no late
penalty was applied to them), and rows of it that name no entry (a misnamed file, most likely).
Warnings are printed with ``--quiet`` too.
"""

from __future__ import annotations

from pathlib import Path

import click

from autograder.cli_common import CourseCommandError, Interrupted, course_file, is_quiet
from autograder.grade.submitted import TIMES_CSV
from autograder.languages import file_names_in_every_language
from autograder.student_text import clean_name

SUBMISSION_SUFFIXES = (".py", ".ipynb", ".zip")
NOT_SUBMISSIONS = ("__pycache__",)
#: Student ids a warning names before "and N more" (the gradebook's reasons name every row).
SHOWN_IDS = 10


def _looks_like_a_submission(path: Path) -> bool:
    if path.is_dir():
        return any(p.suffix in (".py", ".ipynb") for p in path.rglob("*"))
    return path.suffix in SUBMISSION_SUFFIXES


def is_class_folder(path: Path, assignment) -> bool:
    """A folder of several students' entries, rather than one student's folder.

    One student's folder holds the assignment's module or notebook, or a single
    submission-like entry; ``__pycache__`` and hidden entries are not submissions.
    """
    own_files = (assignment.module, *file_names_in_every_language(assignment.notebook))
    if not path.is_dir() or any((path / name).exists() for name in own_files):
        return False
    entries = [
        p for p in path.iterdir()
        if not p.name.startswith(".") and p.name not in NOT_SUBMISSIONS and _looks_like_a_submission(p)
    ]
    return len(entries) > 1 or any(p.is_dir() or p.suffix == ".zip" for p in entries)


def _ids(students: list[str]) -> str:
    """Student ids as one safe line, the first :data:`SHOWN_IDS` of them."""
    shown = ", ".join(clean_name(student) for student in students[:SHOWN_IDS])
    return shown + (f" and {len(students) - SHOWN_IDS} more" if len(students) > SHOWN_IDS else "")


def time_warnings(summary) -> list[str]:
    """What the instructor must hear about the class folder's submission times (empty when every entry had one).

    Parameters
    ----------
    summary : BatchSummary
        The batch's summary (its ``untimed`` and ``unknown_in_times`` students).
    """
    warnings = []
    if summary.untimed:
        warnings.append(f"warning: {len(summary.untimed)} entries have no row in {TIMES_CSV}, so no late penalty was "
                        f"applied to them: {_ids(summary.untimed)} (add their rows and grade again: only they are graded again)")
    if summary.unknown_in_times:
        warnings.append(f"warning: {len(summary.unknown_in_times)} rows of {TIMES_CSV} name no entry of the class folder "
                        f"(a student id is the entry's name without .py, .ipynb or .zip): {_ids(summary.unknown_in_times)}")
    return warnings


def grade_class(ctx, course, assignment, folder: Path, jobs: int, gradebook_path: Path, regrade: bool, file_times: bool,
                only: str | None = None, shard: tuple[int, int] | None = None) -> None:
    """Grade the class folder into the gradebook, then print the table, the warnings and a summary.

    Raises
    ------
    CourseCommandError
        When the grader failed on some entries (they are graded again by the next run).
    Interrupted
        On Ctrl-C, saying how many entries were kept.
    """
    from autograder.batch.entries import list_entries
    from autograder.batch.progress import make_console, progress_bar, rows_table
    from autograder.batch.runner import grade_batch
    from autograder.gradebook.extensions import course_extensions
    from autograder.gradebook.regrade import changed_lines
    from autograder.gradebook.roster import course_roster, roster_warnings

    if not folder.is_dir():
        raise click.UsageError(f"{folder} is not a folder")
    roster = course_roster(course, course_file(ctx))  # before grading: a wrong roster stops the batch at once
    course_extensions(course, course_file(ctx))  # and so does a wrong extensions file
    console, progress_console = make_console(), make_console(stderr=True)
    from autograder.gradebook.shard import in_shard

    students = [entry.student for entry in list_entries(folder)]  # the roster warnings are of the whole folder
    total = sum((only is None or s == only) and in_shard(s, shard) for s in students)
    kept = []
    try:
        with progress_bar(progress_console, total, f"grading {assignment.id}", hidden=is_quiet(ctx)) as advance:
            summary = grade_batch(
                course_file(ctx), course, assignment.id, folder, gradebook_path,
                jobs=jobs, regrade=regrade, file_times=file_times, on_progress=lambda row: (kept.append(row), advance(row)),
                only=only, shard=shard,
            )
    except KeyboardInterrupt:
        graded = sum(row is not None for row in kept)
        raise Interrupted(f"{graded} of {total} entries were graded and are kept in {gradebook_path} "
                          f"({len(kept) - graded} were already there); run the same command again to grade the rest") from None
    if not is_quiet(ctx):
        console.print(rows_table(sorted(summary.rows, key=lambda r: r.student), f"{assignment.id}: this batch"))
        if not file_times and not (folder / TIMES_CSV).is_file():
            console.print(f"no {TIMES_CSV} in the class folder: no late penalty was applied (--file-times takes file times)",
                          soft_wrap=True)
    for warning in time_warnings(summary) + (roster_warnings(roster, students, course.roster) if roster else []):
        click.echo(warning, err=True)
    for line in changed_lines(summary.changed, gradebook_path, assignment.id):
        click.echo(line)  # student ids and reasons: never rich markup
    console.print(
        f"{summary.graded} graded, {summary.skipped} already graded (skipped), {summary.errors} grader errors "
        f"-> {gradebook_path}", soft_wrap=True,
    )
    if summary.errors:
        raise CourseCommandError(
            f"the grader failed on {summary.errors} entries (rows with status 'error'); fix the cause and run again: "
            "only those entries are graded again"
        )
