"""build --check-only's authoring checks: every question has a reference function and hidden tests."""

from __future__ import annotations

from autograder.build.authoring import authoring_problems, hidden_tested_questions, reference_functions
from autograder.config import Question, load_course

COURSE = load_course()


def test_every_question_of_the_course_has_a_reference_and_hidden_tests():
    assert {a.id: authoring_problems(a) for a in COURSE.assignments} == {a.id: [] for a in COURSE.assignments}


def test_a_question_without_a_reference_function_is_named_with_what_to_do():
    assignment = COURSE.assignments[0]
    added = assignment.model_copy(update={"questions": (*assignment.questions, Question(function="attention_entropy", points=1))})
    problems = authoring_problems(added)
    assert any("no reference function attn_reference.attention_entropy" in p and "__all__" in p for p in problems)
    assert any("no hidden test in hidden_tests/hw1_scaled_attention/ marked @pytest.mark.question(\"attention_entropy\")" in p
               for p in problems)


def test_a_question_whose_hidden_tests_are_gone_is_named(tmp_path):
    assignment = COURSE.assignments[0]
    (tmp_path / assignment.id).mkdir()
    (tmp_path / assignment.id / "test_softmax.py").write_text(
        'import pytest\nquestion = pytest.mark.question("softmax")\n', encoding="utf-8")
    problems = authoring_problems(assignment, tests_dir=tmp_path, references=reference_functions())
    assert len(problems) == len(assignment.questions) - 1 and all("no hidden test" in p for p in problems)


def test_the_hidden_tests_mark_every_question_of_their_assignment():
    for assignment in COURSE.assignments:
        assert set(assignment.functions) <= hidden_tested_questions(assignment.id)
