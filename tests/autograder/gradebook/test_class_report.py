"""The class report: table, histograms per question, frequent diagnoses; one page a browser shows well."""

from __future__ import annotations

import pytest

from autograder.config import load_course
from autograder.demo.browser import open_page
from autograder.gradebook.class_report import class_report, frequent_diagnoses, question_scores, write_class_report
from tests.chromium import chromium, coloured_share, page_problems  # noqa: F401 - chromium is a fixture

from .rows import NO_SCALE, NO_SHIFT, a_test, error_row, graded_row

COURSE = load_course()
HW1 = COURSE.assignment("hw1_scaled_attention")


def _row(student: str, softmax: float, attention: float, diagnoses=()):
    return graded_row(student, [
        ("softmax", softmax, 2, [a_test("softmax", softmax == 2, diagnoses=[d for d in diagnoses if d is NO_SHIFT])]),
        ("scaled_dot_product_attention", attention, 4,
         [a_test("scaled_dot_product_attention", attention == 4, diagnoses=[d for d in diagnoses if d is NO_SCALE])]),
    ])


ROWS = [
    _row("ada", 2, 4),
    _row("chen", 2, 1, [NO_SCALE]),
    _row("dana", 2, 0, [NO_SCALE]),
    _row("eli", 0, 2, [NO_SHIFT]),
    _row('<b>王小明</b>', 1, 4),
    error_row("lee", "lee.py is a binary file"),
]


def test_question_scores_are_read_from_every_graded_record():
    scores = question_scores(ROWS, HW1.id)
    assert scores["softmax"] == (2.0, [2.0, 2.0, 2.0, 0.0, 1.0])
    assert scores["scaled_dot_product_attention"] == (4.0, [4.0, 1.0, 0.0, 2.0, 4.0])


def test_the_most_frequent_diagnoses_come_first_with_their_hints_and_student_counts():
    found = frequent_diagnoses(ROWS)
    assert [(d.id, d.students, d.hint) for d in found] == [(NO_SCALE.id, 2, NO_SCALE.hint), (NO_SHIFT.id, 1, NO_SHIFT.hint)]


def test_the_page_has_the_class_table_a_histogram_per_question_and_escapes_names():
    page = class_report(COURSE, ROWS)
    assert page.count('<img class="histogram"') == len(HW1.questions)
    assert "&lt;b&gt;王小明&lt;/b&gt;" in page and "<b>王小明" not in page
    assert "not graded: lee.py is a binary file" in page
    assert page.index(NO_SCALE.id) < page.index(NO_SHIFT.id)
    assert f"<strong>2 students</strong> · <code>{NO_SCALE.id}</code>" in page
    assert "<script" not in page


@pytest.mark.slow
def test_a_real_browser_shows_the_class_report_without_errors_and_the_histograms_visible(tmp_path, chromium):
    path = write_class_report(COURSE, ROWS, tmp_path / "report.html")
    report = open_page(path, chromium)
    assert page_problems(report, "histogram", minimum_images=len(HW1.questions)) == []
    assert coloured_share(report.screenshot) > 0.01
