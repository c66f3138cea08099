"""The demo's last step: the gradebook shown, and the paths of what it wrote (CSV, feedback pages, class report, screenshot)."""

from __future__ import annotations

import pytest
from rich.console import Console

from autograder.config import load_course
from autograder.demo.run import CLASS_REPORT, SCREENSHOT, show_gradebook, showcase
from autograder.demo.sample_class import CORRECT_STUDENT
from autograder.gradebook import Gradebook
from tests.autograder.gradebook.rows import NO_SCALE, a_test, graded_row
from tests.chromium import chromium  # noqa: F401 - a fixture

COURSE = load_course()
SHOWCASE = showcase(COURSE)


def _shown(tmp_path) -> str:
    """What the demo's last step prints for a gradebook of the showcase student (a named bug) and ada (full marks)."""
    student, assignment = SHOWCASE
    with Gradebook(tmp_path / "gradebook.sqlite3") as book:
        book.record(graded_row(student, [("scaled_dot_product_attention", 1, 4,
                                          [a_test("scaled_dot_product_attention", False, diagnoses=[NO_SCALE])])],
                               assignment=assignment))
        book.record(graded_row(CORRECT_STUDENT, [("scaled_dot_product_attention", 4, 4, [a_test("scaled_dot_product_attention", True)])],
                               assignment=assignment))
    console = Console(record=True, width=200)
    show_gradebook(COURSE, tmp_path / "gradebook.sqlite3", tmp_path, console)
    return console.export_text()


@pytest.mark.slow
def test_the_demo_writes_and_names_an_html_feedback_page_the_class_report_and_a_screenshot(tmp_path, chromium):
    student, assignment = SHOWCASE
    printed = _shown(tmp_path)
    page = tmp_path / "feedback" / student / assignment / "feedback.html"
    assert f"an HTML feedback page: {page}" in printed and page.is_file()
    assert f"the class report (table, histograms, frequent diagnoses): {tmp_path / CLASS_REPORT}" in printed
    assert (tmp_path / CLASS_REPORT).is_file()
    assert f"a screenshot of that page at a phone's width: {tmp_path / SCREENSHOT}" in printed
    assert (tmp_path / SCREENSHOT).read_bytes().startswith(b"\x89PNG")


@pytest.mark.slow
def test_the_demo_shows_the_showcase_students_feedback_in_chinese(tmp_path, chromium):
    from autograder.demo.run import SHOWCASE_LANGUAGE, TRANSLATED_FEEDBACK, TRANSLATED_SCREENSHOT
    from autograder.i18n import msg, render

    student, assignment = SHOWCASE
    printed = _shown(tmp_path)
    folder = tmp_path / TRANSLATED_FEEDBACK.format(language=SHOWCASE_LANGUAGE) / student / assignment
    chinese = (folder / "feedback.txt").read_text(encoding="utf-8")
    assert chinese.splitlines()[1] in printed and render(msg("Score: {score} / {max_score}", score="1", max_score="4"), "zh") in chinese
    assert NO_SCALE.id in printed and (folder / "feedback.html").is_file()
    assert (tmp_path / TRANSLATED_SCREENSHOT.format(language=SHOWCASE_LANGUAGE)).read_bytes().startswith(b"\x89PNG")


def test_the_showcase_is_the_sample_classes_else_the_first_assignments_correct_student(tmp_path, monkeypatch):
    from autograder.demo import run
    from autograder.demo.sample_class import SampleClass, sample_class
    from autograder.layout import CourseDirectory

    known = sample_class(COURSE.layout)
    assert SHOWCASE == known.showcase and SHOWCASE[0] in {s.name for s in known.students[SHOWCASE[1]]}
    layout = CourseDirectory(COURSE.layout.course_file, tmp_path, COURSE.layout.releases, COURSE.layout.hidden_tests,
                             COURSE.layout.reference)
    assert sample_class(layout) == SampleClass()  # a course without solutions/sample_class.yml
    monkeypatch.setattr(run, "sample_class", lambda layout: SampleClass())
    assert showcase(COURSE) == (CORRECT_STUDENT, COURSE.assignments[0].id)
