"""Canvas's and Moodle's import files and the detailed CSV, parsed back with the rules each LMS documents."""

from __future__ import annotations

import csv
import io

import pytest

from autograder.gradebook.written_scores import points_possible  # what an assignment is out of, written questions too
from autograder.config import load_course
from autograder.escape import FORMULA_GUARD
from autograder.gradebook.details import MAX_POINTS, detail_header, write_details
from autograder.gradebook.lms import CANVAS_ID_COLUMNS, MOODLE_ID_COLUMNS, POINTS_POSSIBLE, write_canvas, write_moodle
from autograder.gradebook.roster import read_roster
from autograder.grade.result import Penalty

from .rows import a_test, graded_row

COURSE = load_course()
HW1, HW2 = COURSE.assignments[0], COURSE.assignments[1]
HOSTILE_ID = "=HYPERLINK(\"http://x\")"


def half_row(student: str, assignment=HW1, penalties=(), days_late=0):
    """A row whose first question has all its points and the others none."""
    questions = [(q.function, q.points if n == 0 else 0.0, q.points, [a_test(q.function, n == 0)])
                 for n, q in enumerate(assignment.questions)]
    return graded_row(student, questions, assignment=assignment.id, penalties=penalties, days_late=days_late)


@pytest.fixture
def roster(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text("id,name,email,sis_id,section\nada,Ada King Lovelace,ada@example.edu,S001,A\n"
                    "ben,\"Okri, Ben\",ben@example.edu,S002,B\ncarl,=1+1,,S003,\n", encoding="utf-8")
    return read_roster(path)


def parse_canvas(text: str) -> tuple[dict, dict]:
    """Canvas's import rules: a header with the five identity columns, an optional Points Possible row, then a
    row per student, matched by SIS User ID (else SIS Login ID); every other column is an assignment of numbers."""
    table = list(csv.reader(io.StringIO(text, newline="")))
    header = table[0]
    assert header[:5] == list(CANVAS_ID_COLUMNS)
    assignments = header[5:]
    body = table[1:]
    points = {}
    if body and body[0][0].strip() == POINTS_POSSIBLE:
        points = dict(zip(assignments, map(float, body[0][5:])))
        body = body[1:]
    students = {}
    for cells in body:
        assert len(cells) == len(header)
        key = cells[2] or cells[3]
        assert key and key not in students
        students[key] = {"name": cells[0], "section": cells[4], **dict(zip(assignments, map(float, cells[5:])))}
    return points, students


def test_canvas_has_every_roster_student_the_points_possible_and_the_scores(tmp_path, roster):
    rows = [half_row("ada"), half_row("ben", HW2), half_row("stranger")]
    path = write_canvas(rows, [HW1, HW2], tmp_path / "canvas.csv", roster)
    points, students = parse_canvas(path.read_text(encoding="utf-8"))
    assert points == {HW1.title: points_possible(HW1), HW2.title: points_possible(HW2)}
    assert set(students) == {"S001", "S002", "S003"}  # the stranger cannot be matched: not written
    assert students["S001"][HW1.title] == HW1.questions[0].points and students["S001"][HW2.title] == 0
    assert students["S002"][HW2.title] == HW2.questions[0].points
    assert students["S001"]["name"] == "Lovelace, Ada King" and students["S002"]["name"] == "Okri, Ben"
    assert students["S003"]["name"] == FORMULA_GUARD + "=1+1"  # never a formula in the spreadsheet Canvas exports to


def test_without_a_roster_canvas_knows_students_by_login_and_hostile_ids_stay_text(tmp_path):
    rows = [half_row(HOSTILE_ID), half_row("lee")]
    _, students = parse_canvas(write_canvas(rows, [HW1], tmp_path / "c.csv").read_text(encoding="utf-8"))
    assert set(students) == {FORMULA_GUARD + HOSTILE_ID, "lee"}
    assert students["lee"][HW1.title] == HW1.questions[0].points


def parse_moodle(text: str, map_from: str, items: list[str]) -> dict:
    """Moodle's CSV import: one column maps to a user field, each grade item to a column; grades are numbers."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    assert reader.fieldnames[:5] == list(MOODLE_ID_COLUMNS)
    grades = {}
    for record in reader:
        assert record[map_from] not in grades
        grades[record[map_from]] = {item: float(record[item]) for item in items}
    return grades


def test_moodle_maps_by_id_number_or_email(tmp_path, roster):
    rows = [half_row("ada"), half_row("ben", penalties=[Penalty("late", 0.5)], days_late=3)]
    text = write_moodle(rows, [HW1], tmp_path / "moodle.csv", roster).read_text(encoding="utf-8")
    by_number = parse_moodle(text, "ID number", [HW1.title])
    assert by_number == {"S001": {HW1.title: HW1.questions[0].points}, "S002": {HW1.title: HW1.questions[0].points * 0.5},
                         "S003": {HW1.title: 0.0}}
    assert set(parse_moodle(text, "Email address", [HW1.title])) == {"ada@example.edu", "ben@example.edu", ""}
    first = next(csv.DictReader(io.StringIO(text)))
    assert (first["First name"], first["Last name"]) == ("Ada King", "Lovelace")


def test_details_have_a_max_points_row_question_columns_raw_score_late_days_and_penalty(tmp_path, roster):
    late = half_row("ben", penalties=[Penalty("late", 0.2)], days_late=2)
    path = write_details([half_row("ada"), late, half_row("stranger")], HW1, tmp_path / "hw1.csv", roster)
    records = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    assert list(records[0]) == detail_header(HW1)
    top = records[0]
    assert top["student"] == "" and top["status"] == MAX_POINTS
    assert [float(top[q.function]) for q in HW1.questions] == [q.points for q in HW1.questions]
    assert float(top["max_points"]) == points_possible(HW1)
    by_id = {r["student"]: r for r in records[1:]}
    assert list(by_id) == ["ada", "ben", "carl", "stranger"]  # roster order, then the entries not in it
    first = HW1.questions[0]
    assert float(by_id["ben"]["raw_score"]) == first.points and by_id["ben"]["late_days"] == "2"
    assert float(by_id["ben"]["penalty"]) == pytest.approx(first.points * 0.2)
    assert float(by_id["ben"]["score"]) == pytest.approx(first.points * 0.8)
    assert float(by_id["ben"][HW1.questions[1].function]) == 0 and by_id["ben"]["sis_id"] == "S002"
    assert by_id["carl"]["status"] == "no submission" and float(by_id["carl"]["score"]) == 0


def test_the_gradebook_command_writes_the_three_files(tmp_path):
    from click.testing import CliRunner

    from autograder.cli import main
    from autograder.gradebook.store import Gradebook

    with Gradebook(tmp_path / "g.sqlite3") as book:
        book.record(half_row("ada"))
    result = CliRunner().invoke(main, ["gradebook", "--gradebook", str(tmp_path / "g.sqlite3"), "--details", str(tmp_path / "d"),
                                       "--canvas", str(tmp_path / "canvas.csv"), "--moodle", str(tmp_path / "moodle.csv")])
    assert result.exit_code == 0, result.output
    _, students = parse_canvas((tmp_path / "canvas.csv").read_text(encoding="utf-8"))
    assert students["ada"][HW1.title] == HW1.questions[0].points
    assert parse_moodle((tmp_path / "moodle.csv").read_text(encoding="utf-8"), "Username", [HW2.title]) == {"ada": {HW2.title: 0}}
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == sorted(f"{a.id}.csv" for a in COURSE.assignments)
