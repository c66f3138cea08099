"""Manual scores of written answers in every export: totals, class CSV, details, Canvas, feedback, class report; a
regrade keeps them; student text stays text (a comment holding HTML, a formula)."""

from __future__ import annotations

import csv
import json
from dataclasses import replace

from autograder.config import load_course
from autograder.gradebook.actions import current_rows
from autograder.gradebook.class_report import class_report
from autograder.gradebook.details import write_details
from autograder.gradebook.export import write_csv, write_feedback
from autograder.gradebook.lms import write_canvas
from autograder.gradebook.store import Gradebook
from autograder.gradebook.written import WrittenBook
from autograder.gradebook.written_scores import points_possible
from autograder.written.extract import Answer

from .rows import a_test, graded_row

COURSE = load_course()
ASSIGNMENT = next(a for a in COURSE.assignments if a.written)
QUESTION = ASSIGNMENT.written[0]
ITEM = QUESTION.rubric[0]
COMMENT = '<script>alert(1)</script> =HYPERLINK("http://evil.example") [x](javascript:alert(1))'


def _row(student: str):
    q = ASSIGNMENT.questions[0]
    return graded_row(student, [(q.function, q.points, q.points, [a_test(q.function, True)])], assignment=ASSIGNMENT.id)


def _book(tmp_path, comment: str = "clear and right"):
    path = tmp_path / "gradebook.sqlite3"
    with Gradebook(path) as book:
        for student in ("ada", "bob"):
            book.record(_row(student))
    with WrittenBook(path) as written:
        for student in ("ada", "bob"):
            written.store_answers(student, ASSIGNMENT.id, [Answer(q.id, "an answer", True) for q in ASSIGNMENT.written])
        version = written.row("ada", ASSIGNMENT.id, QUESTION.id).version
        written.save("ada", ASSIGNMENT.id, QUESTION.id, [ITEM.id], comment, version, "ta")
    return path


def test_manual_points_add_to_the_total_and_to_what_it_is_out_of(tmp_path):
    path = _book(tmp_path)
    rows = {r.student: r for r in current_rows(path, ASSIGNMENT.id, COURSE)[0]}
    automatic = _row("ada").score
    assert rows["ada"].score == automatic + ITEM.points  # the honest control: bob's ungraded answers count nothing yet
    assert rows["bob"].score == automatic
    assert rows["ada"].max_score == _row("ada").max_score + sum(q.points for q in ASSIGNMENT.written)
    assert {r.student: r.score for r in current_rows(path, ASSIGNMENT.id)[0]} == {"ada": automatic, "bob": automatic}


def test_a_regrade_of_the_autograded_part_keeps_the_manual_scores(tmp_path):
    path = _book(tmp_path)
    regraded = replace(_row("ada"), score=0.5, grader_version="v2", graded_at="2027-03-10T00:00:00+00:00")
    with Gradebook(path) as book:
        book.record(regraded)
    with WrittenBook(path) as written:  # the batch extracts the same answers again
        written.store_answers("ada", ASSIGNMENT.id, [Answer(q.id, "an answer", True) for q in ASSIGNMENT.written])
    ada = next(r for r in current_rows(path, ASSIGNMENT.id, COURSE)[0] if r.student == "ada")
    assert ada.score == 0.5 + ITEM.points


def test_the_csv_details_and_canvas_exports_hold_the_manual_points_and_no_formula(tmp_path):
    path = _book(tmp_path, COMMENT)
    rows = current_rows(path, ASSIGNMENT.id, COURSE)[0]
    table = list(csv.DictReader(write_csv(rows, [ASSIGNMENT.id], tmp_path / "class.csv").open(encoding="utf-8")))
    assert float(next(r for r in table if r["student"] == "ada")[ASSIGNMENT.id]) == _row("ada").score + ITEM.points
    details = list(csv.DictReader(write_details(rows, ASSIGNMENT, tmp_path / "d.csv").open(encoding="utf-8")))
    assert float(details[0][QUESTION.id]) == QUESTION.points and float(details[0]["max_points"]) == points_possible(ASSIGNMENT)
    assert float(next(r for r in details if r["student"] == "ada")[QUESTION.id]) == ITEM.points
    canvas = list(csv.reader(write_canvas(rows, [ASSIGNMENT], tmp_path / "c.csv").open(encoding="utf-8")))
    assert canvas[1][-1] == f"{points_possible(ASSIGNMENT):g}"
    text = "".join(p.read_text(encoding="utf-8") for p in tmp_path.glob("*.csv"))
    assert "HYPERLINK" not in text  # the comment never reaches a spreadsheet


def test_feedback_shows_the_items_and_the_comment_in_the_students_language_as_text(tmp_path):
    path = _book(tmp_path, COMMENT)
    rows = current_rows(path, ASSIGNMENT.id, COURSE)[0]
    for language in COURSE.languages:
        folder = next(f for f in write_feedback(rows, tmp_path / language, language) if f.parent.name == "ada")
        page, text = (folder / "feedback.html").read_text(encoding="utf-8"), (folder / "feedback.txt").read_text(encoding="utf-8")
        assert ITEM.description[language] in page and ITEM.description[language] in text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert" not in page
        assert "<script>alert(1)</script>" in text  # plain text shows it as written
    bob = next(f for f in write_feedback(rows, tmp_path / "b", "en") if f.parent.name == "bob")
    assert "not graded yet" in (bob / "feedback.txt").read_text(encoding="utf-8")


def test_the_class_report_counts_each_rubric_item(tmp_path):
    path = _book(tmp_path)
    report = class_report(COURSE, current_rows(path, ASSIGNMENT.id, COURSE)[0])
    section = report[report.index("Written answers"):]
    row = section[section.index(f"<td>{ITEM.id}</td>"):]
    assert row.split("</tr>")[0].endswith(f"<td>{ITEM.points:g}</td><td>1</td>")
    other = QUESTION.rubric[1].id
    assert section[section.index(f"<td>{other}</td>"):].split("</tr>")[0].endswith("<td>0</td>")
    assert json.loads(current_rows(path, ASSIGNMENT.id, COURSE)[0][0].report)["written"][0]["id"] == QUESTION.id
