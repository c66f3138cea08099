"""The student's notes on how their file was loaded: missing modules in one line, other failures in another."""

from __future__ import annotations

from autograder.grade.load_notes import SHOWN_STATEMENTS, failed_statements_note, load_notes, missing_modules_note
from autograder.sandbox.skipped import SkippedStatement, parse_skipped

PLT = SkippedStatement(3, "ModuleNotFoundError", "No module named 'matplotlib'", "matplotlib")
SNS = SkippedStatement(4, "ModuleNotFoundError", "No module named 'seaborn'", "seaborn")
SHOW = SkippedStatement(20, "NameError", "name 'plt' is not defined", follows=True)
BOOM = SkippedStatement(30, "ValueError", "boom")


def test_missing_modules_are_one_line_with_their_lines_and_the_statements_that_follow():
    assert missing_modules_note((PLT, SNS, SHOW, BOOM)) == [
        "Not available when grading: matplotlib (line 3); seaborn (line 4). These imports and the 1 statement "
        "using what they define were skipped; your functions were loaded without them."
    ]


def test_other_failed_statements_are_one_line_and_leave_out_the_ones_that_follow_a_missing_module():
    assert failed_statements_note((PLT, SHOW, BOOM)) == [
        "Top-level statements that failed when loading your file were skipped (they are not graded): "
        "line 30 (ValueError: boom)."
    ]


def test_many_failed_statements_are_cut_short_with_a_count():
    many = tuple(SkippedStatement(line, "ValueError", "x") for line in range(1, SHOWN_STATEMENTS + 3))
    (note,) = failed_statements_note(many, more=4)
    assert note.count("ValueError") == SHOWN_STATEMENTS and note.endswith("; and 6 more.")


def test_no_skipped_statement_gives_no_note_and_notebook_notes_come_first():
    assert load_notes((), ()) == ()
    assert load_notes(("cell 5 (the `softmax` cell) does not parse: line 2: invalid syntax",), (PLT,))[0].startswith("cell 5")


def test_a_malformed_reply_from_the_sandbox_is_dropped_and_its_text_cleaned():
    header = {
        "skipped": [{"line": "2"}, {"line": True}, "x", {"line": 7, "error": "E\x1b[31m", "message": "a\nb\x07", "module": 5}],
        "skipped_more": -3,
    }
    assert parse_skipped(header) == ((SkippedStatement(7, "E\\x1b[31m", "a b"),), 0)
