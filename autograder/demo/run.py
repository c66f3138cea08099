"""The demo: build the releases, grade a sample class per assignment, show and export the gradebook."""

from __future__ import annotations

import shutil
from pathlib import Path

from rich.console import Console

from autograder.batch.progress import make_console, progress_bar, rows_table
from autograder.batch.runner import grade_batch
from autograder.build import build_release, write_release
from autograder.config import Course
from autograder.demo.classbook import prepare_class
from autograder.demo.sample_class import CORRECT_STUDENT, sample_class, write_sample_class
from autograder.gradebook import Gradebook
from autograder.gradebook.class_report import write_class_report
from autograder.gradebook.export import safe_name, write_csv, write_feedback
from autograder.languages import KNOWN_LANGUAGES

#: Grading processes the demo uses (the machine the targets are set for has 2 cores).
DEMO_JOBS = 2


def build_all(course: Course, console: Console) -> None:
    """Regenerate every release (a no-op when assignments/ is up to date)."""
    for assignment in course.assignments:
        written = write_release(build_release(course, assignment.id), course.layout.release(assignment.id))
        console.print(f"built {assignment.id}: {len(written)} files in assignments/{assignment.id}/")


CLASS_REPORT = "class_report.html"
SCREENSHOT = "feedback_screenshot.png"
#: The language the demo also shows that student's feedback in (when the course ships it), and where it goes.
SHOWCASE_LANGUAGE = "zh"
TRANSLATED_FEEDBACK = "feedback-{language}"
TRANSLATED_SCREENSHOT = "feedback_screenshot.{language}.png"


def grade_sample_classes(course_file: Path, course: Course, out_dir: Path, console: Console, quiet: bool = False) -> Path:
    """Write and grade the sample class of every assignment into a fresh gradebook (progress on standard error)."""
    gradebook_path = out_dir / "gradebook.sqlite3"
    for stale in out_dir.glob("gradebook.sqlite3*"):
        stale.unlink()
    progress_console = make_console(stderr=True)
    for assignment in course.assignments:
        class_dir = out_dir / "class" / assignment.id
        shutil.rmtree(class_dir, ignore_errors=True)
        students = prepare_class(course, course_file, assignment, class_dir, write_sample_class(course, assignment.id, class_dir))
        with progress_bar(progress_console, len(students), f"grading {assignment.id}", hidden=quiet) as advance:
            grade_batch(course_file, course, assignment.id, class_dir, gradebook_path, jobs=DEMO_JOBS, on_progress=advance)
    return gradebook_path


def showcase(course: Course) -> tuple[str, str]:
    """(student, assignment id) whose feedback page the demo points at and photographs: the course's sample class
    names one (a named bug, a heatmap); else its first assignment's first buggy student, or the correct one."""
    known = sample_class(course.layout)
    if known.showcase:
        return known.showcase
    first = course.assignments[0].id
    return (known.students[first][0].name if known.students.get(first) else CORRECT_STUDENT), first


def show_gradebook(course: Course, gradebook_path: Path, out_dir: Path, console: Console) -> None:
    """Print every row with its reasons, then write the CSV, the feedback files, the class report and a screenshot."""
    with Gradebook(gradebook_path) as book:
        rows = book.rows()
    console.print(rows_table(rows, f"gradebook: {gradebook_path}"))
    csv_path = write_csv(rows, [a.id for a in course.assignments], out_dir / "gradebook.csv")
    feedback_dir = out_dir / "feedback"
    folders = write_feedback(rows, feedback_dir)
    report = write_class_report(course, rows, out_dir / CLASS_REPORT, title=f"{course.course.name}: the sample class")
    student, assignment_id = showcase(course)
    page = feedback_dir / safe_name(student) / assignment_id / "feedback.html"
    for line in (f"CSV (a column per assignment, totals): {csv_path}",
                 f"feedback (feedback.txt, feedback.html, results.json) for {len(folders)} submissions in {feedback_dir}/",
                 f"an HTML feedback page: {page}",
                 f"the class report (table, histograms, frequent diagnoses): {report}",
                 _screenshot(page, out_dir / SCREENSHOT)):
        console.print(line, soft_wrap=True)  # paths on one line, however long
    if SHOWCASE_LANGUAGE in course.languages:
        show_translated_feedback(rows, out_dir, console, SHOWCASE_LANGUAGE, (student, assignment_id))


def show_translated_feedback(rows, out_dir: Path, console: Console, language: str, shown: tuple[str, str]) -> None:
    """Write the feedback of ``shown`` (student, assignment id) in ``language``, print its text and photograph its page."""
    chosen = [row for row in rows if (row.student, row.assignment) == shown]
    if not chosen:
        return
    folder = out_dir / TRANSLATED_FEEDBACK.format(language=language)
    write_feedback(chosen, folder, language)
    written = folder / safe_name(shown[0]) / shown[1]
    console.rule(f"{shown[0]}'s feedback on {shown[1]} in {KNOWN_LANGUAGES[language]} (--lang {language})")
    console.print((written / "feedback.txt").read_text(encoding="utf-8"), markup=False, highlight=False, soft_wrap=True)
    for line in (f"the same feedback as a page, in {KNOWN_LANGUAGES[language]}: {written / 'feedback.html'}",
                 _screenshot(written / "feedback.html", out_dir / TRANSLATED_SCREENSHOT.format(language=language))):
        console.print(line, soft_wrap=True)


def _screenshot(page: Path, out: Path) -> str:
    """Photograph the feedback page at a phone's width in headless Chromium, when there is one."""
    from autograder.demo.browser import BrowserError, find_chromium, screenshot

    if not page.is_file():
        return f"no screenshot: {page} was not written"
    if find_chromium() is None:
        return "no screenshot of the feedback page: no Chromium here (Debian: apt-get install chromium)"
    try:
        return f"a screenshot of that page at a phone's width: {screenshot(page, out)}"
    except BrowserError as error:
        return f"no screenshot of the feedback page: {error}"
