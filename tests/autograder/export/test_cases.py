"""The hidden tests as exports list them: every test once, its question and weight, visible only on fixed inputs."""

import pytest

from autograder.config import load_course
from autograder.errors import GraderError
from autograder.export.cases import hidden_cases

COURSE = load_course()
IDS = [a.id for a in COURSE.assignments]


@pytest.mark.parametrize("assignment_id", IDS)
def test_every_question_has_cases_and_each_case_is_listed_once(assignment_id):
    cases = hidden_cases(assignment_id)
    assert {c.question for c in cases} == set(COURSE.assignment(assignment_id).functions)
    assert len({(c.question, c.name) for c in cases}) == len(cases)
    assert all(c.weight > 0 and c.description for c in cases)


def test_tests_on_fixed_inputs_are_visible_and_drawn_ones_hidden():
    cases = {c.name: c for c in hidden_cases("hw1_scaled_attention")}
    assert cases["test_worked_example_row"].visible
    assert not cases["test_random_batched_last_axis"].visible
    assert cases["test_random_batched_last_axis"].weight == 2.0


def test_a_test_without_a_question_is_refused(tmp_path):
    (tmp_path / "hwx").mkdir()
    (tmp_path / "hwx" / "test_x.py").write_text("def test_unmarked(draw):\n    pass\n", encoding="utf-8")
    with pytest.raises(GraderError, match="without a question marker"):
        hidden_cases("hwx", tmp_path)
    with pytest.raises(GraderError, match="no hidden tests"):
        hidden_cases("missing", tmp_path)
