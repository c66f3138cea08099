"""The reasons column: why a row scored what it did."""

from __future__ import annotations

from autograder.gradebook.reasons import row_reasons

from .rows import NO_SCALE, Penalty, a_test, error_row, graded_row


def test_an_untouched_stub_is_named_as_such():
    row = graded_row("stub", [("softmax", 0, 2, [a_test("softmax", False, "not_implemented")]),
                              ("causal_mask", 0, 1, [a_test("causal_mask", False, "not_implemented")])])
    assert row_reasons(row) == ["untouched stub"]


def test_a_partly_implemented_submission_names_the_questions_left_as_stubs():
    row = graded_row("half", [("softmax", 2, 2, [a_test("softmax", True)]),
                              ("causal_mask", 0, 1, [a_test("causal_mask", False, "not_implemented")])])
    assert row_reasons(row) == ["not implemented: causal_mask"]


def test_timeouts_crashes_penalties_and_diagnoses_are_all_named():
    tests = [a_test("softmax", False, "timeout"), a_test("softmax", False, "timeout"), a_test("softmax", False, "crashed"),
             a_test("softmax", False, diagnoses=(NO_SCALE,))]
    row = graded_row("slow", [("softmax", 0, 2, tests)], penalties=(Penalty("imports outside the allowed list: torch (line 1)", 0.5),
                                                                   Penalty("2 day(s) late", 0.2)))
    assert row_reasons(row) == [
        "timed out (2 tests)", "crashed (1 test)", "penalty -50%: imports outside the allowed list: torch (line 1)",
        "penalty -20%: 2 day(s) late", NO_SCALE.id,
    ]


def test_a_row_not_graded_or_not_loaded_says_why_in_one_line():
    assert row_reasons(error_row("x", "the grading process died\nmore")) == ["not graded: the grading process died"]
    row = graded_row("y", [("softmax", 0, 2, [])], load_error="y.py does not parse: invalid syntax (line 3)\n    def (")
    assert row_reasons(row) == ["not loaded: y.py does not parse: invalid syntax (line 3)"]


def test_a_full_score_has_nothing_to_say():
    assert row_reasons(graded_row("ada", [("softmax", 2, 2, [a_test("softmax", True)])])) == []


def test_a_traceback_is_summed_up_by_its_last_line():
    message = '  File "yan.py", line 30\n    from __future__ import annotations\nSyntaxError: from __future__ imports must occur at the beginning'
    row = graded_row("yan", [("softmax", 0, 2, [])], load_error=message)
    assert row_reasons(row) == ["not loaded: SyntaxError: from __future__ imports must occur at the beginning"]


def test_an_entry_submitted_at_csv_has_no_row_for_says_so_whatever_its_score():
    import dataclasses

    from autograder.grade.submitted import TimeSource
    from autograder.gradebook.reasons import NO_TIME

    full = graded_row("ada", [("softmax", 2, 2, [a_test("softmax", True)])])
    timed = dataclasses.replace(full, submitted_at="2027-03-09T10:00:00+00:00", submitted_at_source=TimeSource.CSV)
    assert row_reasons(timed) == []  # the honest control: its time is known
    for row in (full, error_row("x", "the grading process died")):
        untimed = dataclasses.replace(row, submitted_at=None, submitted_at_source=TimeSource.UNMATCHED)
        assert NO_TIME in row_reasons(untimed) and "submitted_at.csv" in NO_TIME
