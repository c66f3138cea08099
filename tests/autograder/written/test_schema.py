"""The written questions of course.yml: the project's own, validated, and bad ones refused with their line."""

from __future__ import annotations

import pytest
import yaml

from autograder.config import DEFAULT_COURSE_FILE, ConfigError, load_course, parse_course


def _course_with(written) -> str:
    data = yaml.safe_load(DEFAULT_COURSE_FILE.read_text(encoding="utf-8"))
    data["assignments"][0]["written"] = written
    return yaml.safe_dump(data, allow_unicode=True)


def _question(**changes) -> dict:
    question = {"id": "why", "points": 2, "prompt": {"en": "Why?", "zh": "为什么？"},
                "rubric": [{"id": "a", "points": 1, "description": {"en": "A", "zh": "甲"}},
                           {"id": "b", "points": 1, "description": {"en": "B", "zh": "乙"}}]}
    return {**question, **changes}


def test_the_course_has_written_questions_in_every_language():
    course = load_course()
    written = [q for a in course.assignments for q in a.written]
    assert len(written) >= 2
    for question in written:
        assert set(course.languages) <= set(question.prompt)
        assert sum(item.points for item in question.rubric) >= question.points
        assert all(set(course.languages) <= set(item.description) for item in question.rubric)


def test_an_honest_question_is_accepted():
    course = parse_course(_course_with([_question()]))
    assert course.assignments[0].written[0].score_of(["a", "b", "unknown"]) == 2


@pytest.mark.parametrize("bad, says", [
    (_question(prompt={"en": "Why?"}), "no text in ['zh']"),
    (_question(rubric=[{"id": "a", "points": 1, "description": {"en": "A", "zh": "甲"}}]), "add up to less"),
    (_question(rubric=[{"id": "a", "points": 3, "description": {"en": "A", "zh": "甲"}}]), "worth more"),
    (_question(id="Why Not"), "lower case"),
    (_question(id="softmax"), "named like graded functions"),
    (_question(prompt={"zh": "为什么？"}), "needs the en text"),
])
def test_a_bad_question_is_refused_naming_the_problem(bad, says):
    with pytest.raises(ConfigError, match="written|assignments") as error:
        parse_course(_course_with([bad]))
    assert says in str(error.value)


def test_repeated_ids_are_refused():
    with pytest.raises(ConfigError, match="repeat"):
        parse_course(_course_with([_question(), _question()]))
