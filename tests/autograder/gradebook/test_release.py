"""Feedback release: held beside the feedback folder, published by a command or on a date, detail as course.yml says."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from click.testing import CliRunner

from autograder.cli import main
from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.gradebook.release import RELEASED, held_dir, release, write_feedback_by_release
from autograder.gradebook.store import Gradebook

from .test_lms import half_row
from tests.autograder.support import link_course_parts

COURSE = load_course()
HW1, HW2 = COURSE.assignments[0], COURSE.assignments[1]
#: What feedback.txt says of a failed hidden test of half_row (its description): the detail.
DETAIL = f"{HW1.questions[1].function} works"


def course_file(tmp_path, *, visibility="after_due_date", release_at=None, extra_days=None):
    text = DEFAULT_COURSE_FILE.read_text(encoding="utf-8") + "\nfeedback_release: held\n"
    text = text.replace("hidden_test_visibility: after_due_date", f"hidden_test_visibility: {visibility}")
    if release_at is not None:
        text = text.replace(f"    due: {HW1.due.isoformat()}", f"    due: {HW1.due.isoformat()}\n    release: {release_at.isoformat()}", 1)
    if extra_days is not None:
        text += "extensions: extensions.csv\n"
        (tmp_path / "extensions.csv").write_text(f"student,assignment,extra_days\nben,{HW1.id},{extra_days}\n", encoding="utf-8")
    path = tmp_path / "course.yml"
    path.write_text(text, encoding="utf-8")
    link_course_parts(tmp_path)
    return path


@pytest.fixture
def book(tmp_path):
    path = tmp_path / "g.sqlite3"
    with Gradebook(path) as gradebook:
        for student in ("ada", "ben"):
            gradebook.record(half_row(student))
    return path


def _feedback(folder, student, assignment=HW1):
    found = list(folder.glob(f"*{student}*/{assignment.id}/feedback.txt"))
    return found[0].read_text(encoding="utf-8") if found else None


def test_held_feedback_stays_beside_the_folder_until_released_then_goes_into_it(tmp_path, book):
    path, out = course_file(tmp_path), tmp_path / "feedback"
    runner = CliRunner()
    held = runner.invoke(main, ["--course", str(path), "gradebook", "--gradebook", str(book), "--feedback", str(out)])
    assert held.exit_code == 0, held.output
    assert _feedback(out, "ada") is None and DETAIL in _feedback(held_dir(out), "ada")  # the instructor's preview
    assert "gradebook release ASSIGNMENT" in held.output and HW1.id in held.output
    done = runner.invoke(main, ["--course", str(path), "gradebook", "release", HW1.id, "--feedback", str(out),
                                "--gradebook", str(book), "--by", "prof"])
    assert done.exit_code == 0, done.output
    assert _feedback(out, "ada") is not None and _feedback(held_dir(out), "ada") is None
    assert json.loads((out / RELEASED).read_text(encoding="utf-8"))[HW1.id]["by"] == "prof"
    again = runner.invoke(main, ["--course", str(path), "gradebook", "--gradebook", str(book), "--feedback", str(out)])
    assert again.exit_code == 0 and "held:" not in again.output  # released: written where students read it


def test_a_release_date_that_has_passed_publishes_without_a_command(tmp_path, book):
    course = load_course(course_file(tmp_path, release_at=HW1.due))
    out = tmp_path / "feedback"
    with Gradebook(book) as gradebook:
        rows = gradebook.rows()
    write_feedback_by_release(course, tmp_path / "course.yml", rows, out, "en", {"ada", "ben"}, now=HW1.due - dt.timedelta(hours=1))
    assert _feedback(out, "ada") is None
    write_feedback_by_release(course, tmp_path / "course.yml", rows, out, "en", {"ada", "ben"}, now=HW1.due + dt.timedelta(hours=1))
    assert _feedback(out, "ada") is not None


@pytest.mark.parametrize(("visibility", "after_due", "shown"), [
    ("after_due_date", False, False), ("after_due_date", True, True), ("hidden", True, False), ("visible", False, True),
    ("after_published", False, True),
])
def test_the_detail_of_hidden_tests_follows_the_visibility(tmp_path, book, visibility, after_due, shown):
    course = load_course(course_file(tmp_path, visibility=visibility))
    with Gradebook(book) as gradebook:
        rows = gradebook.rows()
    now = HW1.due + dt.timedelta(hours=1 if after_due else -1)
    release(course, tmp_path / "course.yml", rows, HW1.id, tmp_path / "out", "en", {"ada", "ben"}, "prof", now=now)
    text = _feedback(tmp_path / "out", "ada")
    assert (DETAIL in text) == shown
    assert f"{HW1.questions[0].points:g}" in text  # the scores are always there
    if not shown:
        assert "details of the hidden tests" in text


def test_an_extension_delays_the_detail_for_that_student_only(tmp_path, book):
    course = load_course(course_file(tmp_path, extra_days=2))
    with Gradebook(book) as gradebook:
        rows = gradebook.rows()
    release(course, tmp_path / "course.yml", rows, HW1.id, tmp_path / "out", "zh", {"ada", "ben"}, "prof",
            now=HW1.due + dt.timedelta(days=1))
    assert DETAIL in _feedback(tmp_path / "out", "ada")
    assert DETAIL not in _feedback(tmp_path / "out", "ben") and "隐藏测试的详细信息在截止时间之后显示" in _feedback(tmp_path / "out", "ben")
