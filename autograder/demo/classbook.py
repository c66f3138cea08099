"""The demo's class management on one assignment (:func:`class_assignment`, hw1 in this project's course): a roster with a student who handed nothing in, an extension,
an override, a similarity flag in the class report, and Canvas's import CSV.

The demo grades with a course folder of its own (``<out>/course``): course.yml as given plus
``roster: roster.csv`` and ``extensions: extensions.csv``. hw1's sample class gets two more
students written independently of the master (from :mod:`autograder.similarity.corpus`):
``s08``, and ``s29`` who hands in s08's file with the variables renamed (the issue's pair), and
a ``submitted_at.csv`` in which two students are two days late, one of them with an extension.
"""

from __future__ import annotations

import datetime as dt
import random
import shutil
from pathlib import Path

from autograder.config import load_course
from autograder.demo.sample_class import sample_class
from autograder.layout import CourseDirectory

from rich.console import Console

#: The demo's students beyond the sample class (on the assignment of :func:`class_assignment`).
ORIGINAL, COPIER = "s08", "s29"
#: The roster student with no entry, the late students (the first has an extension) and the student overridden.
NOT_SUBMITTED, LATE, OVERRIDDEN = "pat", ("hugo", "fay"), "nia"
LATE_DAYS = 2
#: The class report with the roster, in the demo's folder.
CLASS_REPORT = "class-report-{assignment}.html"


def class_assignment(course) -> str:
    """The assignment the demo manages a class on: the sample class's showcase's, else the course's first."""
    shown = sample_class(course.layout).showcase
    return shown[1] if shown else course.assignments[0].id


def demo_course(course_file: Path, out_dir: Path) -> Path:
    """Write the demo's course folder (course.yml with a roster and extensions) and return its course.yml."""
    folder = Path(out_dir) / "course"
    folder.mkdir(parents=True, exist_ok=True)
    text = Path(course_file).read_text(encoding="utf-8")
    (folder / "course.yml").write_text(text.rstrip("\n") + "\n\nroster: roster.csv\nextensions: extensions.csv\n",
                                       encoding="utf-8")
    (folder / "extensions.csv").write_text(  # read by every grading process: there before the first
        f"student,assignment,due,extra_days,reason\n{LATE[0]},{class_assignment(load_course(course_file))},,3,"
        "medical certificate\n", encoding="utf-8")
    _link_course_parts(CourseDirectory.of(course_file), folder)
    return folder / "course.yml"


def _link_course_parts(layout: CourseDirectory, folder: Path) -> None:
    """Make ``folder`` the same course as ``layout``'s: its masters, hidden tests and releases, linked (copied where
    links cannot be made)."""
    for name, source in (("solutions", layout.solutions), ("hidden_tests", layout.hidden_tests),
                         ("assignments", layout.releases)):
        target = folder / name
        if target.exists() or target.is_symlink():
            continue
        try:
            target.symlink_to(source.resolve(), target_is_directory=True)
        except OSError:  # no symbolic links here (Windows without the privilege)
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))


def _roster(folder: Path, students: list[str]) -> None:
    lines = ["id,name,email,sis_id,section"]
    lines += [f"{s},{s.capitalize()} Student,{s}@example.edu,S{n:04d},{'A' if n % 2 else 'B'}"
              for n, s in enumerate([*students, NOT_SUBMITTED], start=1)]
    (folder / "roster.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def prepare_class(course, course_file: Path, assignment, class_dir: Path, students: list[str]) -> list[str]:
    """Before hw1's class is graded: the two similar students, the submission times, the roster; the students now."""
    if assignment.id != class_assignment(course):
        return students
    from autograder.similarity.corpus import corpus_spec, module, rename, styled

    spec = corpus_spec(course)
    if spec.assignment == assignment.id:  # the planted corpus's way of writing: two similar students
        rng = random.Random(8)
        own = styled(module(spec, {f: spec.variants[f][1] for f in spec.functions}, "s08's own"), rng)
        (class_dir / f"{ORIGINAL}.py").write_text(own, encoding="utf-8")
        (class_dir / f"{COPIER}.py").write_text(rename(own, rng), encoding="utf-8")
        students = sorted({*students, ORIGINAL, COPIER})
    from autograder.demo.written import write_sample_answers

    write_sample_answers(course, assignment, class_dir)
    late, on_time = assignment.due + dt.timedelta(days=LATE_DAYS), assignment.due - dt.timedelta(hours=1)
    (class_dir / "submitted_at.csv").write_text("student,submitted_at\n" + "".join(
        f"{s},{(late if s in LATE else on_time).isoformat()}\n" for s in students), encoding="utf-8")
    _roster(Path(course_file).parent, students)
    return students


def show_classbook(course, course_file: Path, gradebook_path: Path, out_dir: Path, console: Console) -> None:
    """After grading: the override, the Canvas CSV, and hw1's class report with the roster and the similarity flags."""
    from autograder.gradebook.class_report import write_class_report
    from autograder.gradebook.actions import current_rows, report_rows, similarity_sections, write_lms_files
    from autograder.gradebook.override import main as override

    from autograder.demo.written import show_written

    assignment = course.assignment(class_assignment(course))
    written = show_written(course, course_file, gradebook_path, out_dir, assignment.id)
    lines = [override(course, gradebook_path, OVERRIDDEN, assignment.id, score=assignment.max_points - 1, who="demo",
                      reason="graded by hand: a one-character typo in a def line")]
    rows, _ = current_rows(gradebook_path, course=course)
    lines += write_lms_files(course, course_file, rows, None, canvas=Path(out_dir) / "canvas.csv",
                             moodle=Path(out_dir) / "moodle.csv")
    sections, flagged = similarity_sections(course, assignment.id, Path(out_dir) / "class" / assignment.id)
    report = write_class_report(course, report_rows(course, course_file, rows, assignment.id),
                                Path(out_dir) / CLASS_REPORT.format(assignment=assignment.id), title=f"{course.course.name}: {assignment.id} with the roster", sections=sections)
    by_student = {r.student: r for r in rows if r.assignment == assignment.id}
    lines += flagged + [
        f"roster: {NOT_SUBMITTED} handed nothing in (no submission: 0 points)",
        f"extension: {LATE[0]} was {LATE_DAYS} days late with 3 extra days: {by_student[LATE[0]].days_late} days late, "
        f"{by_student[LATE[0]].score:g}/{by_student[LATE[0]].max_score:g}; {LATE[1]}, as late without one: "
        f"{by_student[LATE[1]].days_late} days late, {by_student[LATE[1]].score:g}",
        f"{assignment.id}'s class report with the roster, statistics and similarity flags: {report}",
        *written,
    ]
    for line in lines:
        console.print(line, soft_wrap=True, markup=False, highlight=False)
