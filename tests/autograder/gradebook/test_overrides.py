"""Overrides: kept with who, when, why and the previous value; in every export; surviving a regrade, which lists them."""

from __future__ import annotations

import csv
import io
import json
import os

import pytest
from click.testing import CliRunner

from autograder.build.markers import keep_solutions
from autograder.cli import main
from autograder.config import load_course
from autograder.grade.result import Penalty
from autograder.gradebook.actions import current_rows
from autograder.gradebook.override import OverrideError
from autograder.gradebook.override import main as override
from autograder.gradebook.overrides import OverrideBook
from autograder.gradebook.store import Gradebook
from autograder.paths import ASSIGNMENTS_DIR, SOLUTIONS_DIR
from autograder.scoring import apply_penalties

from .test_lms import half_row

COURSE = load_course()
HW1 = COURSE.assignments[0]
FIRST, SECOND = HW1.questions[0], HW1.questions[1]
LATE = 0.2


@pytest.fixture
def book(tmp_path):
    path = tmp_path / "gradebook.sqlite3"
    with Gradebook(path) as gradebook:
        gradebook.record(half_row("ada", penalties=[Penalty("late", LATE)], days_late=2))
        gradebook.record(half_row("ben"))
    return path


def _rows(path):
    return {row.student: row for row in current_rows(path)[0]}


def test_a_score_override_is_kept_with_who_when_why_and_the_previous_score(book):
    before = _rows(book)["ben"].score
    line = override(COURSE, book, "ben", HW1.id, score=HW1.max_points - 1, reason="regrade request #3", who="ta1")
    assert "regrade request #3" in line and f"{before:g} -> {HW1.max_points - 1:g}" in line
    with OverrideBook(book) as overrides:
        (kept,) = overrides.history()
    assert (kept.student, kept.question, kept.previous, kept.who, kept.reason) == ("ben", None, before, "ta1", "regrade request #3")
    assert kept.at.endswith("+00:00")
    ben = _rows(book)["ben"]
    assert ben.score == HW1.max_points - 1 and ben.report_dict["graded_score"] == before
    with Gradebook(book) as gradebook:
        assert gradebook.current_row("ben", HW1.id).score == before  # the graded row itself is untouched


def test_a_question_override_scores_the_questions_again_under_the_same_penalties(book):
    override(COURSE, book, "ada", HW1.id, question="2", points=SECOND.points, reason="hand-checked")
    ada = _rows(book)["ada"]
    raw = FIRST.points + SECOND.points
    assert ada.raw_score == raw and ada.score == apply_penalties(raw, [LATE])
    scores = {q["function"]: q["score"] for q in json.loads(ada.tests)}
    assert scores[SECOND.function] == SECOND.points
    notes = ada.report_dict["result"]["load_notes"]
    assert any(SECOND.function in note and "by hand" in note for note in notes)  # the student's feedback says so


def test_the_latest_override_wins_and_the_history_keeps_all(book):
    override(COURSE, book, "ben", HW1.id, score=1, reason="first")
    override(COURSE, book, "ben", HW1.id, score=2, reason="second")
    assert _rows(book)["ben"].score == 2
    with OverrideBook(book) as overrides:
        assert [o.previous for o in overrides.history()] == [FIRST.points, 1]


@pytest.mark.parametrize(("kwargs", "problem"), [
    ({"score": HW1.max_points + 1, "reason": "x"}, "between 0 and"),
    ({"question": "9", "points": 1, "reason": "x"}, "has no question '9'"),
    ({"question": "1", "points": FIRST.points + 1, "reason": "x"}, "between 0 and"),
    ({"score": 1, "reason": "  "}, "give a --reason"),
    ({"score": 1, "question": "1", "points": 1, "reason": "x"}, "give --score X, or --question N"),
])
def test_a_wrong_override_is_refused_and_nothing_is_kept(book, kwargs, problem):
    with pytest.raises(OverrideError) as caught:
        override(COURSE, book, "ben", HW1.id, **kwargs)
    assert problem in str(caught.value)
    with OverrideBook(book) as overrides:
        assert overrides.history() == []


def test_an_override_of_a_student_with_no_row_is_refused(book):
    with pytest.raises(OverrideError, match="has no row"):
        override(COURSE, book, "nobody", HW1.id, score=1, reason="x")


def test_the_cli_override_then_the_canvas_file_has_the_overridden_score(book, tmp_path):
    from .test_lms import parse_canvas

    runner = CliRunner()
    done = runner.invoke(main, ["gradebook", "override", "ben", HW1.id, "--score", "3.5", "--reason", "typo in test",
                                "--gradebook", str(book), "--by", "prof"])
    assert done.exit_code == 0, done.output
    done = runner.invoke(main, ["gradebook", "--gradebook", str(book), "--canvas", str(tmp_path / "c.csv")])
    assert done.exit_code == 0, done.output
    _, students = parse_canvas((tmp_path / "c.csv").read_text(encoding="utf-8"))
    assert students["ben"][HW1.title] == 3.5 and students["ada"][HW1.title] == apply_penalties(FIRST.points, [LATE])
    refused = runner.invoke(main, ["gradebook", "override", "ben", HW1.id, "--score", "99", "--reason", "x",
                                   "--gradebook", str(book)])
    assert refused.exit_code != 0 and "between 0 and" in refused.output and "Traceback" not in refused.output


SOLUTION = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
STUB = (ASSIGNMENTS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="a class folder is graded in the bwrap sandbox, as root here")
def test_an_override_survives_a_regrade_which_lists_the_changed_scores_and_the_override(tmp_path):
    folder, book = tmp_path / "class", tmp_path / "g.sqlite3"
    for student in ("ada", "ben"):
        (folder / student).mkdir(parents=True)
        (folder / student / HW1.module).write_text(SOLUTION, encoding="utf-8")
    runner = CliRunner()
    grade = ["grade", HW1.id, str(folder), "--gradebook", str(book)]
    assert runner.invoke(main, grade).exit_code == 0
    assert runner.invoke(main, ["gradebook", "override", "ada", HW1.id, "--score", "5", "--reason", "academic integrity",
                                "--gradebook", str(book)]).exit_code == 0
    for student in ("ada", "ben"):  # both hand in the stub again: both graded scores change
        (folder / student / HW1.module).write_text(STUB, encoding="utf-8")
    regraded = runner.invoke(main, grade)
    assert regraded.exit_code == 0, regraded.output
    lines = {line.split(":")[0].strip(): line for line in regraded.output.splitlines() if " -> " in line and ":" in line}
    assert f"{HW1.max_points:g} -> 0" in lines["ada"] and "override still applies: score 5" in lines["ada"]
    assert f"{HW1.max_points:g} -> 0" in lines["ben"] and "override" not in lines["ben"]
    rows = _rows(book)
    assert rows["ada"].score == 5 and rows["ben"].score == 0  # the override survived; the honest control did not gain
    (folder / "ben" / HW1.module).write_text(SOLUTION, encoding="utf-8")
    one = runner.invoke(main, [*grade, "--student", "ben"])
    assert one.exit_code == 0 and "1 scores of" in one.output and "ada" not in one.output.split("scores of")[1]
    table = runner.invoke(main, ["gradebook", "--gradebook", str(book), "--details", str(tmp_path / "d")])
    assert table.exit_code == 0
    details = list(csv.DictReader(io.StringIO((tmp_path / "d" / f"{HW1.id}.csv").read_text(encoding="utf-8"))))
    assert {r["student"]: float(r["score"]) for r in details[1:]} == {"ada": 5, "ben": HW1.max_points}


@pytest.mark.parametrize(("language", "said"), [("en", "set this score by hand (it was"), ("zh", "由老师手动设定（原为")])
def test_the_students_feedback_says_the_score_was_set_by_hand_in_their_language(book, tmp_path, language, said):
    from autograder.gradebook.export import write_feedback

    override(COURSE, book, "ben", HW1.id, score=1, reason="private note for the staff")
    written = write_feedback([_rows(book)["ben"]], tmp_path / "fb", language, {"ben"})
    text = (written[0] / "feedback.txt").read_text(encoding="utf-8")
    assert said in text and "private note" not in text
