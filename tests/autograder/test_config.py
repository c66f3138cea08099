"""course.yml: the real file loads, and every kind of mistake names its key and line."""

from __future__ import annotations

import datetime as dt
import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

import attn_reference
from autograder.config import (
    DEFAULT_COURSE_FILE,
    ConfigError,
    load_course,
    parse_course,
)
from autograder.course_check import describe_schema
from tests.strategies import QUICK

SOURCE = "small.yml"

VALID = textwrap.dedent(
    """\
    course:
      name: Attention
      term: Spring 2027
    assignments:
      - id: hw1
        title: First
        module: first.py
        notebook: first.ipynb
        due: 2027-03-08T23:59:00+08:00
        questions:
          - function: f
            points: 2
          - function: g
            points: 1
    """
)


def line_number(text: str, snippet: str, occurrence: int = 1) -> int:
    """1-based line of the ``occurrence``-th line of ``text`` containing ``snippet``."""
    hits = [number for number, line in enumerate(text.splitlines(), start=1) if snippet in line]
    return hits[occurrence - 1]


def config_error(text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_course(text, source=SOURCE)
    return str(caught.value)


def second_assignment(text: str) -> str:
    """``text`` with a copy of its assignment appended (same id and questions)."""
    return text + text[text.index("  - id:") :]


def test_real_course_numbers_its_assignments_in_order_with_increasing_due_dates():
    assignments = load_course(DEFAULT_COURSE_FILE).assignments
    assert [a.id.split("_")[0] for a in assignments] == [f"hw{n}" for n in range(1, len(assignments) + 1)]
    dues = [a.due for a in assignments]
    assert dues == sorted(dues) and len(set(dues)) == len(dues)


def test_real_course_file_names_are_unique():
    assignments = load_course(DEFAULT_COURSE_FILE).assignments
    for names in ([a.module for a in assignments], [a.notebook for a in assignments]):
        assert len(set(names)) == len(names)


@pytest.mark.parametrize(
    "assignment, function",
    [(a, q.function) for a in load_course(DEFAULT_COURSE_FILE).assignments for q in a.questions],
    ids=lambda value: getattr(value, "id", value),
)
def test_every_real_question_has_a_reference_to_grade_against(assignment, function):
    assert function in attn_reference.__all__, f"{assignment.id}: attn_reference does not export {function}"


def test_real_course_derived_properties_follow_the_questions():
    for assignment in load_course(DEFAULT_COURSE_FILE).assignments:
        assert assignment.max_points == sum(q.points for q in assignment.questions)
        assert assignment.functions == tuple(q.function for q in assignment.questions)
        assert [assignment.question_number(f) for f in assignment.functions] == list(range(1, len(assignment.questions) + 1))
        assert assignment.module_name == assignment.module.removesuffix(".py")
        assert assignment.due.utcoffset() is not None


def test_small_course_file_names_and_derived_properties():
    first = parse_course(VALID, source=SOURCE).assignment("hw1")
    assert (first.module, first.notebook, first.module_name) == ("first.py", "first.ipynb", "first")
    assert first.max_points == 3
    assert first.question_number("g") == 2
    assert first.functions == ("f", "g")
    assert first.due.utcoffset() == dt.timedelta(hours=8)


def test_valid_small_course_gets_the_documented_defaults():
    course = parse_course(VALID, source=SOURCE)
    assert course.defaults.call_timeout_s == 5.0
    assert "numpy" in course.defaults.allowed_imports
    assert course.late_policy.grace_period_minutes == 15
    assert course.assignments[0].questions[1].function == "g"


def test_negative_points_names_the_key_and_its_line():
    text = VALID.replace("points: 1", "points: -1")
    message = config_error(text)
    assert f"{SOURCE}:{line_number(text, 'points: -1')}: assignments.0.questions.1.points:" in message


def test_unknown_key_is_forbidden_on_its_own_line():
    text = VALID.replace("    title: First\n", "    title: First\n    colour: red\n")
    message = config_error(text)
    assert f"{SOURCE}:{line_number(text, 'colour: red')}: assignments.0.colour:" in message
    assert "Extra inputs are not permitted" in message


def test_unknown_top_level_key_is_forbidden():
    text = VALID + "grading_mode: strict\n"
    assert f"{SOURCE}:{line_number(text, 'grading_mode')}: grading_mode:" in config_error(text)


def test_missing_required_key_points_at_the_mapping_that_lacks_it():
    text = VALID.replace("    title: First\n", "")
    message = config_error(text)
    assert f"{SOURCE}:{line_number(text, '- id: hw1')}: assignments.0.title: Field required" in message


def test_missing_top_level_section_is_reported():
    text = "course: {name: C, term: T}\n"
    assert f"{SOURCE}:1: assignments: Field required" in config_error(text)


def test_due_date_without_time_zone_is_rejected_on_its_line():
    text = VALID.replace("23:59:00+08:00", "23:59:00")
    message = config_error(text)
    assert f"{SOURCE}:{line_number(text, 'due:')}: assignments.0.due:" in message
    assert "time zone" in message


def test_duplicate_assignment_id_is_named():
    message = config_error(second_assignment(VALID))
    assert "assignment ids repeat" in message
    assert "'hw1'" in message


def test_duplicate_assignment_id_points_at_the_repeated_id():
    text = second_assignment(VALID)
    assert f"{SOURCE}:{line_number(text, '- id: hw1', occurrence=2)}:" in config_error(text)


def test_duplicate_question_function_names_the_assignment_and_function():
    text = VALID.replace("function: g", "function: f")
    message = config_error(text)
    assert f"{SOURCE}:{line_number(text, '- id: hw1')}: assignments.0:" in message
    assert "questions repeat functions: ['f']" in message


def test_one_mistake_gives_one_problem_line():
    assert len(config_error(VALID.replace("points: 1", "points: -1")).splitlines()) == 1


def test_invalid_yaml_names_the_source_and_line():
    text = VALID + "extra: [unclosed\n"
    message = config_error(text)
    assert message.startswith(f"{SOURCE}: not valid YAML")
    assert f"line {line_number(text, 'extra:')}" in message


@pytest.mark.parametrize("text", ["- a\n- b\n", "just a string\n", ""], ids=["list", "scalar", "empty"])
def test_non_mapping_top_level_is_rejected(text):
    assert config_error(text) == f"{SOURCE}: expected a mapping of keys at the top level"


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        ("id: hw1", "id: HW1", "assignments.0.id"),
        ("module: first.py", "module: first.txt", "assignments.0.module"),
        ("notebook: first.ipynb", "notebook: dir/first.ipynb", "assignments.0.notebook"),
        ("function: f", "function: not-a-name", "assignments.0.questions.0.function"),
    ],
)
def test_field_validators_name_their_key_and_line(old, new, key):
    text = VALID.replace(old, new)
    assert f"{SOURCE}:{line_number(text, new)}: {key}:" in config_error(text)


@QUICK
@given(count=st.integers(1, 6), data=st.data())
def test_line_of_a_bad_question_follows_its_position(count, data):
    bad = data.draw(st.integers(0, count - 1))
    questions = "".join(
        f"      - function: q{i}\n        points: {-1 if i == bad else 1}\n" for i in range(count)
    )
    text = VALID[: VALID.index("      - function: f")] + questions
    message = config_error(text)
    assert f"{SOURCE}:{line_number(text, 'points: -1')}: assignments.0.questions.{bad}.points:" in message


def test_defaults_out_of_range_names_the_key():
    text = VALID + "defaults:\n  memory_mb: 1\n"
    assert f"{SOURCE}:{line_number(text, 'memory_mb')}: defaults.memory_mb:" in config_error(text)


def test_unknown_assignment_lists_the_known_ids():
    course = load_course(DEFAULT_COURSE_FILE)
    with pytest.raises(ConfigError) as caught:
        course.assignment("hw9_missing")
    message = str(caught.value)
    assert "hw9_missing" in message
    for known in course.assignments:
        assert known.id in message


def test_load_course_on_a_missing_path_raises_config_error(tmp_path):
    missing = tmp_path / "nowhere.yml"
    with pytest.raises(ConfigError, match="cannot read") as caught:
        load_course(missing)
    assert str(missing) in str(caught.value)


def test_load_course_reports_problems_under_the_file_path(tmp_path):
    path = tmp_path / "course.yml"
    path.write_text(VALID.replace("points: 2", "points: 0"), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_course(path)
    assert f"{path}:{line_number(VALID, 'points: 2')}: assignments.0.questions.0.points:" in str(caught.value)


def test_describe_schema_describes_every_key():
    rows = describe_schema()
    empty = [key for key, _, description in rows if not description.strip()]
    assert empty == []


def test_describe_schema_covers_nested_keys():
    keys = {key for key, _, _ in describe_schema()}
    expected = {
        "course.name",
        "defaults.call_timeout_s",
        "late_policy.max_days_late",
        "assignments[].due",
        "assignments[].questions[].points",
    }
    assert expected <= keys


def test_describe_schema_marks_required_keys_and_shows_defaults():
    rows = {key: default for key, default, _ in describe_schema()}
    assert rows["assignments[].id"] == "(required)"
    assert rows["defaults.rtol"] == repr(1e-5)


def test_course_is_immutable():
    course = parse_course(VALID, source=SOURCE)
    with pytest.raises(ValueError):
        course.assignments = ()


# --- languages ---------------------------------------------------------------------------


def test_languages_default_to_english_with_english_feedback():
    course = parse_course(VALID, source=SOURCE)
    assert course.languages == ("en",)
    assert course.feedback_language == "en"
    assert course.assignments[0].titles == {}
    assert course.assignments[0].title_in("zh") == "First"


def test_feedback_language_defaults_to_the_first_language():
    course = parse_course(VALID + "languages: [zh, en]\n", source=SOURCE)
    assert (course.languages, course.feedback_language) == (("zh", "en"), "zh")


def test_feedback_language_can_be_any_language_of_the_course():
    course = parse_course(VALID + "languages: [en, zh]\nfeedback_language: zh\n", source=SOURCE)
    assert course.feedback_language == "zh"


@pytest.mark.parametrize(
    "extra, key, words",
    [
        ("languages: [en, fr]\n", "languages.1", "'en' or 'zh'"),
        ("languages: [zh, zh]\n", "languages", "languages repeat: ['zh']"),
        ("languages: []\n", "languages", "at least 1"),
        ("languages: [en]\nfeedback_language: zh\n", "(top level)", "feedback_language 'zh' is not one of languages ['en']"),
        ("feedback_language: fr\n", "feedback_language", "'en' or 'zh'"),
    ],
)
def test_bad_languages_name_the_key(extra, key, words):
    message = config_error(VALID + extra)
    assert f": {key}: " in message and words in message


def test_translated_titles_are_shown_in_their_language():
    text = VALID.replace("title: First\n", "title: First\n    titles: {zh: 第一}\n")
    assignment = parse_course(text, source=SOURCE).assignments[0]
    assert (assignment.title_in("zh"), assignment.title_in("en")) == ("第一", "First")


@pytest.mark.parametrize(
    "titles, words", [("{en: Other}", "`title` is the en title"), ("{zh: ' '}", "empty titles for ['zh']"), ("{fr: Premier}", "'en' or 'zh'")]
)
def test_bad_translated_titles_are_refused(titles, words):
    text = VALID.replace("title: First\n", f"title: First\n    titles: {titles}\n")
    message = config_error(text)
    assert "assignments.0.titles" in message and words in message


def test_a_command_language_overrides_the_feedback_language_only_within_the_languages():
    course = parse_course(VALID + "languages: [en, zh]\n", source=SOURCE)
    assert course.feedback_language_for(None) == "en"
    assert course.feedback_language_for("zh") == "zh"
    with pytest.raises(ConfigError, match=r"--lang zh: the course ships en \(course.yml: languages\)"):
        parse_course(VALID, source=SOURCE).feedback_language_for("zh")


def test_describe_schema_shows_the_language_defaults():
    rows = {key: default for key, default, _ in describe_schema()}
    assert rows["languages"] == "('en',)"
    assert rows["feedback_language"] == "(the first of languages)"
    assert rows["assignments[].titles"] == "{}"
    assert rows["defaults"] == "(see keys below)"
