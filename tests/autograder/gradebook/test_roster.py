"""The roster: read strictly (errors name the line), every roster student a row, entries not in it listed."""

from __future__ import annotations

import csv
import textwrap
import unicodedata

import pytest

from autograder.gradebook.written_scores import points_possible  # what an assignment is out of, written questions too
from autograder.config import ConfigError, load_course, parse_course
from autograder.gradebook.csv_input import ClassFileError
from autograder.gradebook.export import NOT_IN_ROSTER, write_csv
from autograder.gradebook.reasons import row_reasons
from autograder.gradebook.roster import (
    COLUMNS,
    NO_SUBMISSION,
    class_rows,
    course_roster,
    read_roster,
    roster_warnings,
    with_roster,
)

from .rows import a_test, graded_row

COURSE = load_course()
HW1, HW2 = COURSE.assignments[0], COURSE.assignments[1]
HEADER = ",".join(COLUMNS)


def roster_file(tmp_path, body: str, header: str = HEADER):
    path = tmp_path / "roster.csv"
    path.write_text(header + "\n" + textwrap.dedent(body), encoding="utf-8")
    return path


def full_row(student: str, assignment=HW1):
    questions = [(q.function, q.points, q.points, [a_test(q.function, True)]) for q in assignment.questions]
    return graded_row(student, questions, assignment=assignment.id)


ROSTER_BODY = """\
    ada,Ada Lovelace,ada@example.edu,S001,A
    ben,Ben Okri,ben@example.edu,S002,B
    chen,,,,
"""


def test_a_roster_keeps_every_column_in_file_order(tmp_path):
    roster = read_roster(roster_file(tmp_path, ROSTER_BODY))
    assert roster.ids == ["ada", "ben", "chen"]
    ada = roster.find("ada")
    assert (ada.name, ada.email, ada.sis_id, ada.section) == ("Ada Lovelace", "ada@example.edu", "S001", "A")
    assert roster.find("chen").email == "" and "dana" not in roster


def test_a_byte_order_mark_and_columns_in_another_order_are_read(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_bytes("\ufeffsection,id,name,email,sis_id\nA,ada,Ada,,S1\n".encode("utf-8"))
    assert read_roster(path).find("ada").section == "A"


@pytest.mark.parametrize("header, body, line, words", [
    ("id,name,email,section", "ada,Ada,,A\n", 1, "missing columns: sis_id"),
    (HEADER + ",grade", "ada,Ada,,,A,9\n", 1, "unknown columns: grade"),
    ("id,id,name,email,sis_id,section", "a,a,A,,,\n", 1, "repeated columns: id"),
    (HEADER, "ada,Ada,,,A\n,Ben,,,B\n", 3, "the id column is empty"),
    (HEADER, "ada,Ada,,,A\nben,Ben,,,B\nada,Ada again,,,C\n", 4, "id 'ada' is already the id of"),
    (HEADER, "ada,Ada,ADA@x.edu,,A\nben,Ben,ada@X.edu,,B\n", 3, "email 'ada@x.edu' is already"),
    (HEADER, "ada,Ada,,S1,A\nben,Ben,,S1,B\n", 3, "sis_id 'S1' is already"),
    (HEADER, "ada,Ada,not an address,,A\n", 2, "is not an e-mail address"),
    (HEADER, "ada,Ada,,,A\nben,Ben,,B\n", 3, "4 cells, but the header names 5 columns"),
])
def test_every_problem_names_the_file_and_its_line(tmp_path, header, body, line, words):
    path = roster_file(tmp_path, body, header)
    with pytest.raises(ClassFileError) as caught:
        read_roster(path)
    assert f"{path}:{line}:" in str(caught.value) and words in str(caught.value)


def test_one_id_in_two_unicode_spellings_is_used_twice(tmp_path):
    nfc = unicodedata.normalize("NFC", "josé")
    nfd = unicodedata.normalize("NFD", "josé")
    with pytest.raises(ClassFileError, match=":3: id"):
        read_roster(roster_file(tmp_path, f"{nfc},J,,,\n{nfd},J,,,\n"))


def test_a_roster_that_is_not_utf8_or_not_there_says_so(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_bytes((HEADER + "\nzoë,Zoë,,,\n").encode("latin-1"))
    with pytest.raises(ClassFileError, match="not UTF-8"):
        read_roster(path)
    with pytest.raises(ClassFileError, match="cannot read"):
        read_roster(tmp_path / "absent.csv")


def test_every_roster_student_has_a_row_and_entries_outside_it_are_listed(tmp_path):
    roster = read_roster(roster_file(tmp_path, ROSTER_BODY))
    rows = [full_row("ben"), full_row("zed"), full_row("ada"), full_row("ada", HW2)]
    seen = class_rows(roster, rows, HW1)
    assert [row.student for row in seen.rows] == ["ada", "ben", "chen", "zed"]
    chen = seen.rows[2]
    assert (chen.status, chen.score, chen.max_score) == (NO_SUBMISSION, 0.0, points_possible(HW1))
    assert row_reasons(chen) == [NO_SUBMISSION]
    assert seen.rows[0].score == HW1.max_points and seen.not_in_roster == ["zed"]


def test_a_row_spelled_in_another_unicode_form_is_the_roster_student_s(tmp_path):
    roster = read_roster(roster_file(tmp_path, f"{unicodedata.normalize('NFC', 'josé')},José,,,\n"))
    seen = class_rows(roster, [full_row(unicodedata.normalize("NFD", "josé"))], HW1)
    assert [row.status for row in seen.rows] == ["graded"] and seen.not_in_roster == []
    assert seen.rows[0].student == unicodedata.normalize("NFC", "josé")


def test_with_roster_covers_every_assignment_and_lists_strangers_once(tmp_path):
    roster = read_roster(roster_file(tmp_path, ROSTER_BODY))
    rows, strangers = with_roster(roster, [full_row("zed"), full_row("zed", HW2), full_row("ada")], [HW1, HW2])
    assert strangers == ["zed"]
    assert sum(row.status == NO_SUBMISSION for row in rows) == 2 * 3 - 1  # ada handed in hw1 only
    assert with_roster(None, rows[:1], [HW1]) == (rows[:1], [])


def test_the_csv_has_a_row_per_roster_student_with_the_roster_s_columns(tmp_path):
    roster = read_roster(roster_file(tmp_path, ROSTER_BODY + "    mal,=HYPERLINK(\"http://x\"),,,\n"))
    ids = [a.id for a in COURSE.assignments]
    path = write_csv([full_row("ada"), full_row("zed")], ids, tmp_path / "out.csv", roster)
    with path.open(newline="", encoding="utf-8") as handle:
        records = list(csv.DictReader(handle))
    assert [r["student"] for r in records] == ["ada", "ben", "chen", "mal", "zed"]
    by_id = {r["student"]: r for r in records}
    assert by_id["ada"]["sis_id"] == "S001" and by_id["ada"]["total"] == str(HW1.max_points)
    assert by_id["ben"]["missing"] == " ".join(ids) and by_id["ben"]["total"] == "0.0"
    assert by_id["zed"]["roster"] == NOT_IN_ROSTER and by_id["ada"]["roster"] == ""
    assert by_id["mal"]["name"].startswith("'=")  # a name is never a spreadsheet formula


def test_the_batch_summary_names_strangers_and_students_without_an_entry(tmp_path):
    roster = read_roster(roster_file(tmp_path, ROSTER_BODY))
    lines = roster_warnings(roster, ["ada", "zed", "x\x1b[31m"], "roster.csv")
    assert lines[0].startswith("warning: 2 entries are not in roster.csv") and "x\\x1b[31m" in lines[0]
    assert lines[1] == f"2 students of roster.csv have no entry ({NO_SUBMISSION}: 0 points): ben, chen"
    assert roster_warnings(roster, roster.ids) == []


COURSE_TEXT = textwrap.dedent("""\
    course: {name: A, term: T}
    roster: {roster}
    assignments:
      - {id: hw1, title: T, module: m.py, notebook: m.ipynb, due: 2027-03-08T23:59:00+08:00,
         questions: [{function: f, points: 1}]}
""")


@pytest.mark.parametrize("name", ["/etc/roster.csv", "../roster.csv", "class/../../r.csv", "roster.txt", "a\\\\b.csv",
                                  "class//r.csv"])
def test_course_yml_refuses_a_roster_outside_the_course_folder_or_not_csv(name):
    with pytest.raises(ConfigError) as caught:
        parse_course(COURSE_TEXT.replace("{roster}", f'"{name}"'), "c.yml")
    assert "c.yml:2: roster:" in str(caught.value)


def test_course_roster_reads_the_file_beside_the_course_file(tmp_path):
    (tmp_path / "class").mkdir()
    roster_file(tmp_path / "class", ROSTER_BODY)
    course_file = tmp_path / "course.yml"
    course_file.write_text(COURSE_TEXT.replace("{roster}", "class/roster.csv"), encoding="utf-8")
    course = parse_course(course_file.read_text(encoding="utf-8"))
    assert course_roster(course, course_file).ids == ["ada", "ben", "chen"]
    assert course_roster(parse_course(COURSE_TEXT.replace("roster: {roster}\n", "")), course_file) is None
