"""Extensions: read strictly, and a student's own due date removes the late penalty on every path that grades."""

from __future__ import annotations

import datetime as dt
import json
import os
import textwrap

import pytest
from click.testing import CliRunner

from autograder.batch.resume import grading_fingerprint
from autograder.build.markers import keep_solutions
from autograder.cli import main
from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.gradebook.csv_input import ClassFileError, class_file_bytes
from autograder.gradebook.extensions import (
    COLUMNS,
    course_extensions,
    gradescope_students,
    read_extensions,
    with_due,
)
from autograder.gradebook.roster import read_roster
from autograder.gradebook.store import Gradebook
from autograder.paths import SOLUTIONS_DIR
from tests.autograder.support import link_course_parts

COURSE = load_course()
HW1, HW2 = COURSE.assignments[0], COURSE.assignments[1]
SOLUTION = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
HEADER = ",".join(COLUMNS)
#: Days late of the late submissions below, and the extra days that cover them.
LATE_DAYS, EXTRA_DAYS = 2, 3


def extensions_file(tmp_path, body: str):
    path = tmp_path / "extensions.csv"
    path.write_text(HEADER + "\n" + textwrap.dedent(body), encoding="utf-8")
    return path


def test_a_due_date_an_extra_time_and_an_accommodation_for_every_assignment(tmp_path):
    new_due = HW1.due + dt.timedelta(days=4)
    path = extensions_file(tmp_path, f"""\
        ada,{HW1.id},{new_due.isoformat()},,doctor's note
        ben,{HW1.id},,1.5,
        chen,*,,{EXTRA_DAYS},accommodation
        chen,{HW2.id},,7,
    """)
    found = read_extensions(path, COURSE)
    assert found.due_for("ada", HW1) == new_due and found.find("ada", HW1.id).reason == "doctor's note"
    assert found.due_for("ben", HW1) == HW1.due + dt.timedelta(hours=36)
    assert found.due_for("ada", HW2) == HW2.due and found.due_for("dana", HW1) == HW1.due
    assert found.due_for("chen", HW1) == HW1.due + dt.timedelta(days=EXTRA_DAYS)
    assert found.due_for("chen", HW2) == HW2.due + dt.timedelta(days=7)  # its own row replaces the * row


def test_a_group_gets_the_latest_due_date_of_its_members(tmp_path):
    found = read_extensions(extensions_file(tmp_path, f"ada,{HW1.id},,1,\nben,{HW1.id},,{EXTRA_DAYS},\n"), COURSE)
    assert found.due_for(["ada", "ben", "zoe"], HW1) == HW1.due + dt.timedelta(days=EXTRA_DAYS)


@pytest.mark.parametrize(("body", "problem"), [
    (f"ada,{HW1.id},,,", "give one of due and extra_days"),
    (f"ada,{HW1.id},{HW1.due.isoformat()},2,", "give one of due and extra_days"),
    ("ada,hw9_nothing,,2,", "no assignment 'hw9_nothing'"),
    (f"ada,*,{HW1.due.isoformat()},,", "give extra_days for *"),
    (f"ada,{HW1.id},2027-03-10T23:59:00,,", "needs a time zone"),
    (f"ada,{HW1.id},,-1,", "must be more than 0"),
    (f"ada,{HW1.id},,nan,", "must be more than 0"),
    (f"ada,{HW1.id},,two,", "is not a number"),
    (f"ada,{HW1.id},,1,\nada,{HW1.id},,2,", "a second row for ada"),
    (f",{HW1.id},,1,", "the student column is empty"),
])
def test_a_wrong_row_is_an_error_naming_its_line(tmp_path, body, problem):
    with pytest.raises(ClassFileError) as caught:
        read_extensions(extensions_file(tmp_path, body + "\n"), COURSE)
    assert problem in str(caught.value) and "extensions.csv:" in str(caught.value)


def test_with_due_changes_one_assignment_only():
    later = HW1.due + dt.timedelta(days=1)
    changed = with_due(COURSE, HW1.id, later)
    assert changed.assignment(HW1.id).due == later and changed.assignment(HW2.id).due == HW2.due
    assert COURSE.assignment(HW1.id).due == HW1.due and with_due(COURSE, HW1.id, HW1.due) is COURSE


def test_gradescope_users_are_matched_by_email_and_sis_id(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email,sis_id,section\nada,Ada,Ada@Example.edu,S1,A\nben,Ben,,S2,B\n", encoding="utf-8")
    metadata = tmp_path / "submission_metadata.json"
    metadata.write_text(json.dumps({"users": [{"email": "ada@example.edu", "id": 7}, {"sid": "S2"}, "junk"]}),
                        encoding="utf-8")
    assert set(gradescope_students(metadata, read_roster(roster))) == {"ada@example.edu", "S2", "ada", "ben"}
    metadata.write_text("not json", encoding="utf-8")
    assert gradescope_students(metadata) == []


# --- every path that grades: one submission (--student, Gradescope metadata) and a class folder ---


@pytest.fixture
def course_file(tmp_path):
    """course.yml with an extensions file giving ada EXTRA_DAYS on hw1, and a roster naming her e-mail."""
    path = tmp_path / "course.yml"
    path.write_text(DEFAULT_COURSE_FILE.read_text(encoding="utf-8") + "\nroster: roster.csv\nextensions: extensions.csv\n",
                    encoding="utf-8")
    (tmp_path / "roster.csv").write_text("id,name,email,sis_id,section\nada,Ada,ada@example.edu,,\nben,Ben,,,\n",
                                         encoding="utf-8")
    extensions_file(tmp_path, f"ada,{HW1.id},,{EXTRA_DAYS},flu\n")
    link_course_parts(tmp_path)
    return path


def _late(tmp_path):
    path = tmp_path / HW1.module
    path.write_text(SOLUTION, encoding="utf-8")
    return path, (HW1.due + dt.timedelta(days=LATE_DAYS)).isoformat()


def _graded(*args) -> dict:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_one_submission_with_student_gets_their_due_date(tmp_path, course_file):
    path, late = _late(tmp_path)
    base = ("--course", course_file, "grade", HW1.id, path, "--format", "json", "--submitted-at", late)
    extended, other = _graded(*base, "--student", "ada"), _graded(*base, "--student", "ben")
    assert extended["days_late"] == 0 and extended["score"] == HW1.max_points
    assert other["days_late"] == LATE_DAYS and other["score"] < HW1.max_points  # the honest control: still late


def test_gradescope_metadata_gives_the_users_due_date(tmp_path, course_file):
    path, late = _late(tmp_path)
    metadata = tmp_path / "submission_metadata.json"
    scores = {}
    for email in ("ada@example.edu", "ben@example.edu"):
        metadata.write_text(json.dumps({"created_at": late, "users": [{"email": email, "name": "x", "id": 1}]}),
                            encoding="utf-8")
        scores[email] = _graded("--course", course_file, "grade", HW1.id, path, "--format", "json", "--metadata", metadata)
    assert scores["ada@example.edu"]["days_late"] == 0 and scores["ada@example.edu"]["score"] == HW1.max_points
    assert scores["ben@example.edu"]["days_late"] == LATE_DAYS


def test_a_changed_extension_changes_the_resume_key(tmp_path, course_file):
    course = load_course(course_file)
    before = grading_fingerprint(course_file, HW1.id, also=class_file_bytes(course, course_file))
    extensions_file(tmp_path, f"ada,{HW1.id},,{EXTRA_DAYS + 1},flu\n")
    assert grading_fingerprint(course_file, HW1.id, also=class_file_bytes(course, course_file)) != before
    assert grading_fingerprint(DEFAULT_COURSE_FILE, HW1.id, also=class_file_bytes(COURSE, DEFAULT_COURSE_FILE)) \
        == grading_fingerprint(DEFAULT_COURSE_FILE, HW1.id)  # a course without extensions keeps its fingerprint


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="a class folder is graded in the bwrap sandbox, as root here")
def test_a_class_folder_gives_each_student_their_due_date(tmp_path, course_file):
    folder = tmp_path / "class"
    for student in ("ada", "ben"):
        (folder / student).mkdir(parents=True)
        (folder / student / HW1.module).write_text(SOLUTION, encoding="utf-8")
    late = (HW1.due + dt.timedelta(days=LATE_DAYS)).isoformat()
    (folder / "submitted_at.csv").write_text(f"student,submitted_at\nada,{late}\nben,{late}\n", encoding="utf-8")
    book = tmp_path / "gradebook.sqlite3"
    result = CliRunner().invoke(main, ["--course", str(course_file), "grade", HW1.id, str(folder), "--gradebook", str(book)])
    assert result.exit_code == 0, result.output
    with Gradebook(book) as gradebook:
        rows = {row.student: row for row in gradebook.rows(HW1.id)}
    assert rows["ada"].days_late == 0 and rows["ada"].score == HW1.max_points
    assert rows["ben"].days_late == LATE_DAYS and rows["ben"].score < HW1.max_points


def test_a_wrong_extensions_file_stops_a_batch_before_grading(tmp_path, course_file):
    extensions_file(tmp_path, "ada,hw9_nothing,,1,\n")
    (tmp_path / "class" / "ada").mkdir(parents=True)
    result = CliRunner().invoke(main, ["--course", str(course_file), "grade", HW1.id, str(tmp_path / "class"),
                                       "--gradebook", str(tmp_path / "g.sqlite3"), "--batch"])
    assert result.exit_code != 0 and "hw9_nothing" in result.output and not (tmp_path / "g.sqlite3").exists()
    assert course_extensions(COURSE, DEFAULT_COURSE_FILE).rows == ()


def test_the_gradescope_zip_carries_the_roster_and_extensions_beside_course_yml(tmp_path, course_file):
    import zipfile

    from autograder.export.gradescope import write_zip
    from autograder.export.target import ExportContext

    wheel = tmp_path / "attn_course-0-py3-none-any.whl"
    wheel.write_bytes(b"not a wheel: the zip only copies it")
    course = load_course(course_file)
    path = write_zip(tmp_path / "autograder.zip", ExportContext(course, course_file, (HW1.id,)), HW1, wheel)
    with zipfile.ZipFile(path) as archive:
        assert archive.read("extensions.csv") == (tmp_path / "extensions.csv").read_bytes()
        assert archive.read("roster.csv") == (tmp_path / "roster.csv").read_bytes()
