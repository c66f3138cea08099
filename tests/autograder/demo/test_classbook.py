"""The demo's class management on hw1: one non-submitter, one extension, one override, one similarity flag, Canvas CSV."""

from __future__ import annotations

import os

import pytest
from rich.console import Console

from autograder.batch.runner import grade_batch
from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.demo.classbook import (
    CLASS_REPORT,
    COPIER,
    LATE,
    LATE_DAYS,
    NOT_SUBMITTED,
    ORIGINAL,
    OVERRIDDEN,
    class_assignment,
    demo_course,
    prepare_class,
    show_classbook,
)
from autograder.demo.sample_class import write_sample_class
from tests.autograder.gradebook.test_lms import parse_canvas


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="a class folder is graded in the bwrap sandbox, as root here")
def test_the_demo_shows_a_non_submitter_an_extension_an_override_one_flag_and_writes_canvas(tmp_path):
    course_file = demo_course(DEFAULT_COURSE_FILE, tmp_path)
    course = load_course(course_file)
    ASSIGNMENT = class_assignment(course)
    assignment = course.assignment(ASSIGNMENT)
    class_dir = tmp_path / "class" / ASSIGNMENT
    students = prepare_class(course, course_file, assignment, class_dir, write_sample_class(course, ASSIGNMENT, class_dir))
    book = tmp_path / "gradebook.sqlite3"
    grade_batch(course_file, course, ASSIGNMENT, class_dir, book, jobs=2)
    console = Console(record=True, width=300)
    show_classbook(course, course_file, book, tmp_path, console)
    printed = console.export_text()
    flags = [line for line in printed.splitlines() if line.startswith("similar (")]
    assert flags == [f"similar ({ASSIGNMENT}): {ORIGINAL} and {COPIER}, " + flags[0].split(", ", 1)[1]]  # exactly one
    assert f"extension: {LATE[0]} was {LATE_DAYS} days late with 3 extra days: 0 days late" in printed
    assert f"{LATE[1]}, as late without one: {LATE_DAYS} days late" in printed
    assert f"{OVERRIDDEN} {ASSIGNMENT} score: 0 -> {assignment.max_points - 1:g}" in printed
    points, canvas = parse_canvas((tmp_path / "canvas.csv").read_text(encoding="utf-8"))
    assert points[assignment.title] == assignment.max_points and len(canvas) == len(students) + 1  # pat too
    by_login = {row["name"].split(", ")[-1].split()[0].lower(): row for row in canvas.values()}
    assert by_login[NOT_SUBMITTED][assignment.title] == 0
    assert by_login[OVERRIDDEN][assignment.title] == assignment.max_points - 1
    page = (tmp_path / CLASS_REPORT.format(assignment=ASSIGNMENT)).read_text(encoding="utf-8")
    assert "no submission" in page and "Similar submissions" in page and "<h2>Item analysis</h2>" in page
