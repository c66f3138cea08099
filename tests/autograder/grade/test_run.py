"""run_on_submission: the shared read, parse, sandbox and suite sequence."""

import pytest

from autograder.config import load_course
from autograder.grade.api import hidden_test_files
from autograder.grade.run import run_on_submission

pytestmark = pytest.mark.slow
COURSE = load_course()
HW1 = COURSE.assignment("hw1_scaled_attention")


def test_a_syntax_error_stops_before_the_sandbox(tmp_path):
    path = tmp_path / HW1.module
    path.write_text("def softmax(:\n", encoding="utf-8")
    run = run_on_submission(COURSE, HW1, path, hidden_test_files(HW1))
    assert run.tree is None and "does not parse" in run.load_error
    assert run.isolation == "not started" and run.results == []


def test_an_import_failure_keeps_the_tree_and_the_output(tmp_path):
    path = tmp_path / HW1.module
    path.write_text("import sys\nprint('hello from import')\nsys.exit('boom at import')\n", encoding="utf-8")
    run = run_on_submission(COURSE, HW1, path, hidden_test_files(HW1))
    assert run.tree is not None and "sys.exit('boom at import')" in run.load_error
    assert "hello from import" in run.student_output and run.results == []


def test_a_statement_raising_at_top_level_is_a_note_and_the_tests_still_run(tmp_path):
    path = tmp_path / HW1.module
    path.write_text("print('hello from import')\nraise RuntimeError('boom at import')\n", encoding="utf-8")
    run = run_on_submission(COURSE, HW1, path, hidden_test_files(HW1))
    assert run.load_error is None and run.results
    assert run.load_notes == (
        "Top-level statements that failed when loading your file were skipped (they are not graded): "
        "line 2 (RuntimeError: boom at import).",
    )
