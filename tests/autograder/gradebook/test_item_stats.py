"""The class report's figures: mean and median, item analysis, late and missing; readable at 1280 px and on a phone."""

from __future__ import annotations

import json
import statistics

import pytest

from autograder.config import load_course
from autograder.demo.browser import open_page
from autograder.gradebook.class_report import class_report, write_class_report
from autograder.gradebook.item_stats import assignment_stats, correlation, item_stats
from autograder.gradebook.roster import RosterStudent, no_submission_row
from tests.chromium import chromium, page_problems  # noqa: F401 - chromium is a fixture

from .rows import a_test, graded_row
from tests.autograder.support import link_course_parts

COURSE = load_course()
HW1 = COURSE.assignments[0]
FIRST, SECOND, THIRD = HW1.questions[:3]


def _row(student: str, shares: list[float], days_late: int = 0):
    """A row whose question i got shares[i] of its points (the rest 0)."""
    questions = [(q.function, q.points * (shares[i] if i < len(shares) else 0.0), q.points, [a_test(q.function, True)])
                 for i, q in enumerate(HW1.questions)]
    return graded_row(student, questions, days_late=days_late)


#: The question shares of each graded student (Q1, Q2, Q3; Q4 none): Q4 no one gets, Q1 goes against Q3.
SHARES = {"a": [1, 1, 0], "b": [1, 1, 0], "c": [0, 1, 1], "d": [0, 0.5, 1], "g": [1, 0, 0.5]}
ROWS = [_row(s, shares, days_late=2 if s == "b" else 0) for s, shares in SHARES.items()] + [
    no_submission_row(RosterStudent("e"), HW1)]


def test_mean_median_late_and_missing():
    stats = assignment_stats(ROWS, HW1)
    scores = [r.score for r in ROWS]
    assert (stats.mean, stats.median) == (pytest.approx(statistics.fmean(scores)), statistics.median(scores))
    assert (stats.students, stats.late, stats.missing, stats.not_graded) == (len(SHARES) + 1, 1, 1, 0)


def test_difficulty_is_the_mean_share_and_discrimination_the_corrected_item_total_correlation():
    items = {i.function: i for i in item_stats(ROWS, HW1)}
    shares = list(SHARES.values())
    assert items[FIRST.function].difficulty == pytest.approx(statistics.fmean(s[0] for s in shares))
    assert items[HW1.questions[3].function].discrimination is None  # no one got it: it tells no one apart
    first = [s[0] * FIRST.points for s in shares]
    rest = [s[1] * SECOND.points + s[2] * THIRD.points for s in shares]  # the rest of the assignment, Q1 left out
    expected = correlation(first, rest)
    assert items[FIRST.function].discrimination == pytest.approx(expected) and expected < 0
    assert items[FIRST.function].students == len(SHARES)  # the graded ones


def test_correlation_by_hand():
    assert correlation([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert correlation([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert correlation([1, 1, 1], [1, 2, 3]) is None and correlation([1, 2], [1, 2]) is None


def test_the_page_shows_the_figures():
    page = class_report(COURSE, ROWS)
    assert "<h2>Summary</h2>" in page and "<h2>Item analysis</h2>" in page
    mean = statistics.fmean(r.score for r in ROWS)
    assert f"<td>{mean:.2f}</td>" in page


#: Measures whether any table box scrolls sideways (its content wider than it) and the reasons column's right edge.
TABLES = """JSON.stringify({
  scrolling: [...document.querySelectorAll('div.table')].filter(d => d.scrollWidth > d.clientWidth + 1).length,
  reasonsRight: Math.max(...[...document.querySelectorAll('td.text')].map(c => c.getBoundingClientRect().right)),
  width: window.innerWidth})"""


@pytest.mark.slow
@pytest.mark.parametrize("width", [1280, 390])
def test_at_1280_px_nothing_scrolls_and_on_a_phone_only_tables_do(tmp_path, chromium, width):
    long_reasons = [graded_row(f"student_{n:02d}_with_a_long_id", [(q.function, 0.0, q.points, [a_test(q.function, False)])
                                                                 for q in HW1.questions], days_late=3) for n in range(6)]
    rows = ROWS + long_reasons + [no_submission_row(RosterStudent("f"), a) for a in COURSE.assignments[1:]]
    path = write_class_report(COURSE, rows, tmp_path / "report.html")
    report = open_page(path, chromium, width=width, script=TABLES)
    assert page_problems(report, "histogram", minimum_images=len(HW1.questions)) == []
    measured = json.loads(report.measured) if isinstance(report.measured, str) else report.measured
    if width == 1280:
        assert measured["scrolling"] == 0 and measured["reasonsRight"] <= measured["width"]


def test_each_frequent_diagnosis_has_one_example_of_a_student_and_the_test_that_shows_it():
    from autograder.gradebook.class_report import frequent_diagnoses

    from .test_class_report import NO_SCALE, ROWS as DIAGNOSED

    found = {d.id: d for d in frequent_diagnoses(DIAGNOSED)}
    first = sorted(r.student for r in DIAGNOSED if NO_SCALE.id in r.diagnoses)[0]
    assert found[NO_SCALE.id].example.startswith(f"{first}: scaled_dot_product_attention works")
    assert f"e.g. {first}:" in class_report(COURSE, DIAGNOSED)


def test_the_cli_class_report_lists_roster_students_without_entries_and_entries_not_in_the_roster(tmp_path):
    from click.testing import CliRunner

    from autograder.cli import main
    from autograder.config import DEFAULT_COURSE_FILE
    from autograder.gradebook.store import Gradebook

    course_file = tmp_path / "course.yml"
    course_file.write_text(DEFAULT_COURSE_FILE.read_text(encoding="utf-8") + "\nroster: roster.csv\n", encoding="utf-8")
    link_course_parts(tmp_path)
    (tmp_path / "roster.csv").write_text("id,name,email,sis_id,section\na,,,,\npat,,,,\n", encoding="utf-8")
    with Gradebook(tmp_path / "g.sqlite3") as book:
        book.record(_row("a", [1]))
        book.record(_row("<i>stranger</i>", [1]))
    done = CliRunner().invoke(main, ["--course", str(course_file), "gradebook", "--gradebook", str(tmp_path / "g.sqlite3"),
                                     "--assignment", HW1.id, "--html", str(tmp_path / "r.html")])
    assert done.exit_code == 0, done.output
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<td>pat</td>" in page and "no submission" in page
    assert "Entries not in roster" in page and "&lt;i&gt;stranger&lt;/i&gt;" in page and "<i>stranger" not in page
