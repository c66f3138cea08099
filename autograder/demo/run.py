"""The demo: build the releases, grade a sample class per assignment, show and export the gradebook."""

from __future__ import annotations

import shutil
from pathlib import Path

from rich.console import Console

from autograder.batch.progress import progress_bar, rows_table
from autograder.batch.runner import grade_batch
from autograder.build import build_release, write_release
from autograder.config import Course
from autograder.demo.sample_class import write_sample_class
from autograder.gradebook import Gradebook
from autograder.gradebook.export import write_csv, write_feedback
from autograder.paths import ASSIGNMENTS_DIR

#: Grading processes the demo uses (the machine the targets are set for has 2 cores).
DEMO_JOBS = 2


def build_all(course: Course, console: Console) -> None:
    """Regenerate every release (a no-op when assignments/ is up to date)."""
    for assignment in course.assignments:
        written = write_release(build_release(course, assignment.id), ASSIGNMENTS_DIR / assignment.id)
        console.print(f"built {assignment.id}: {len(written)} files in assignments/{assignment.id}/")


def grade_sample_classes(course_file: Path, course: Course, out_dir: Path, console: Console) -> Path:
    """Write and grade the sample class of every assignment into a fresh gradebook."""
    gradebook_path = out_dir / "gradebook.sqlite3"
    for stale in out_dir.glob("gradebook.sqlite3*"):
        stale.unlink()
    for assignment in course.assignments:
        class_dir = out_dir / "class" / assignment.id
        shutil.rmtree(class_dir, ignore_errors=True)
        students = write_sample_class(course, assignment.id, class_dir)
        with progress_bar(console, len(students), f"grading {assignment.id}") as advance:
            grade_batch(course_file, course, assignment.id, class_dir, gradebook_path, jobs=DEMO_JOBS, on_progress=advance)
    return gradebook_path


def show_gradebook(course: Course, gradebook_path: Path, out_dir: Path, console: Console) -> None:
    """Print every row with its diagnoses, then write the CSV and the feedback files."""
    with Gradebook(gradebook_path) as book:
        rows = book.rows()
    console.print(rows_table(rows, f"gradebook: {gradebook_path}"))
    csv_path = write_csv(rows, [a.id for a in course.assignments], out_dir / "gradebook.csv")
    folders = write_feedback(rows, out_dir / "feedback")
    console.print(f"CSV (a column per assignment, totals): {csv_path}")
    console.print(f"feedback (results.json + feedback.txt) for {len(folders)} submissions in {out_dir / 'feedback'}/")
