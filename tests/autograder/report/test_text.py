"""Reports of a hand-built GradeResult: Gradescope results.json, JUnit XML, text and JSON."""

from __future__ import annotations

import dataclasses
import itertools
import html
import json
import re
from xml.etree import ElementTree

import pytest

from autograder.engine.results import FAILED, PASSED, Diagnosis, TestResult
from autograder.report.formats import FORMATS
from autograder.report.text import to_dict, to_gradescope, to_gradescope_dict, to_junit, to_text
from autograder.grade.result import GradeResult, Penalty
from autograder.scoring import QuestionScore

NO_SCALE = Diagnosis("no_sqrt_dk_scaling", "Divide the scores by sqrt(d_k) before the softmax.")
WRONG_AXIS = Diagnosis("softmax_wrong_axis", "Normalise over the keys, the last axis.")

PASSING = TestResult("test_rows_sum_to_one", "softmax", 1.0, "Rows sum to one", PASSED)
FAILING = TestResult(
    "test_matches_reference", "scaled_dot_product_attention", 2.0, "Matches the reference on random inputs", FAILED,
    message="values differ at [0, 1]", kind="mismatch", diagnoses=(NO_SCALE, WRONG_AXIS),
)
ALSO_PASSING = TestResult("test_shape", "scaled_dot_product_attention", 1.0, "Output shape", PASSED)

QUESTIONS = (
    QuestionScore("softmax", 1, 2.0, 2.0, (PASSING,)),
    QuestionScore("scaled_dot_product_attention", 2, 3.0, 1.0, (FAILING, ALSO_PASSING)),
    QuestionScore("causal_mask", 3, 1.0, 0.0, ()),
)

RESULT = GradeResult(
    assignment_id="hw1_scaled_attention",
    origin="scaled_attention.py",
    questions=QUESTIONS,
    max_score=6.0,
    raw_score=3.0,
    score=1.35,
    penalties=(Penalty("imports outside the allowed list: torch (line 1)", 0.5), Penalty("1 day(s) late", 0.1)),
    import_violations=("torch",),
    isolation="bubblewrap",
    student_output="debug print\n",
    execution_time=1.23456,
    grader_version="0.1.0",
    days_late=1,
)

NOT_LOADED = GradeResult(
    assignment_id="hw1_scaled_attention",
    origin="scaled_attention.py",
    questions=tuple(QuestionScore(q.function, q.number, q.points, 0.0, ()) for q in QUESTIONS),
    max_score=6.0,
    raw_score=0.0,
    score=0.0,
    load_error="scaled_attention.py does not parse: invalid syntax (line 3)",
)

GRADESCOPE_TEST_KEYS = {"name", "score", "max_score", "status", "output", "visibility", "extra_data"}


def test_gradescope_top_level_keys_and_values():
    data = to_gradescope_dict(RESULT)
    assert {"score", "execution_time", "output", "tests"} <= set(data)
    assert data["score"] == 1.35
    assert data["execution_time"] == pytest.approx(1.235)
    assert "Score: 1.35 / 6" in data["output"]


def test_gradescope_has_one_test_per_question_with_the_required_keys():
    tests = to_gradescope_dict(RESULT)["tests"]
    assert [t["name"] for t in tests] == ["Q1 softmax", "Q2 scaled_dot_product_attention", "Q3 causal_mask"]
    for test in tests:
        assert GRADESCOPE_TEST_KEYS <= set(test)
        assert test["status"] in {"passed", "failed"}
        assert test["visibility"] in {"hidden", "after_due_date", "after_published", "visible"}


def test_gradescope_scores_and_statuses_per_question():
    tests = to_gradescope_dict(RESULT)["tests"]
    assert [(t["score"], t["max_score"], t["status"]) for t in tests] == [
        (2.0, 2.0, "passed"), (1.0, 3.0, "failed"), (0.0, 1.0, "failed"),
    ]


def test_gradescope_failed_question_explains_and_lists_diagnoses():
    question = to_gradescope_dict(RESULT)["tests"][1]
    assert "Matches the reference on random inputs: values differ at [0, 1]" in question["output"]
    assert NO_SCALE.hint in question["output"]
    assert question["extra_data"]["diagnoses"] == [NO_SCALE.id]  # one per question: the first of equally supported
    assert (question["extra_data"]["tests_passed"], question["extra_data"]["tests_run"]) == (1, 2)


def test_gradescope_passed_question_says_so():
    question = to_gradescope_dict(RESULT)["tests"][0]
    assert question["output"] == "All tests passed."
    assert question["extra_data"]["diagnoses"] == []


def test_gradescope_output_lists_penalties():
    output = to_gradescope_dict(RESULT)["output"]
    assert "-50% for imports outside the allowed list" in output
    assert "-10% for 1 day(s) late" in output


def test_gradescope_result_is_json_serialisable():
    assert json.loads(to_gradescope(RESULT)) == to_gradescope_dict(RESULT)


def test_gradescope_extra_data_lists_diagnoses_in_first_appearance_order():
    assert to_gradescope_dict(RESULT)["extra_data"]["diagnoses"] == [NO_SCALE.id, WRONG_AXIS.id]


def test_not_loaded_says_not_graded_for_every_question():
    tests = to_gradescope_dict(NOT_LOADED)["tests"]
    assert len(tests) == len(QUESTIONS)
    for test in tests:
        assert test["output"] == f"Not graded: {NOT_LOADED.load_error}"
        assert (test["score"], test["status"]) == (0.0, "failed")


def test_not_loaded_summary_names_the_load_error():
    assert NOT_LOADED.load_error in to_gradescope_dict(NOT_LOADED)["output"]
    assert "could not be graded" in to_text(NOT_LOADED)


def junit_root(result: GradeResult) -> ElementTree.Element:
    return ElementTree.fromstring(to_junit(result))


def test_junit_parses_with_one_suite_per_question():
    root = junit_root(RESULT)
    assert root.tag == "testsuites" and root.get("name") == "hw1_scaled_attention"
    suites = root.findall("testsuite")
    assert [(s.get("name"), s.get("tests"), s.get("failures")) for s in suites] == [
        ("Q1 softmax", "1", "0"), ("Q2 scaled_dot_product_attention", "2", "1"), ("Q3 causal_mask", "0", "0"),
    ]


def test_junit_counts_failures_and_describes_them():
    failures = junit_root(RESULT).findall(".//failure")
    assert len(failures) == 1
    failure = failures[0]
    assert (failure.get("type"), failure.get("message")) == ("mismatch", "values differ at [0, 1]")
    assert f"[{NO_SCALE.id}] {NO_SCALE.hint}" in failure.text


def test_junit_testcases_are_named_after_tests():
    cases = junit_root(RESULT).findall(".//testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("softmax", "test_rows_sum_to_one"),
        ("scaled_dot_product_attention", "test_matches_reference"),
        ("scaled_dot_product_attention", "test_shape"),
    ]


def test_junit_of_an_unloaded_submission_has_an_error_per_question():
    errors = junit_root(NOT_LOADED).findall(".//error")
    assert len(errors) == len(QUESTIONS)
    assert all(e.text == NOT_LOADED.load_error for e in errors)


@pytest.mark.parametrize("result", [RESULT, NOT_LOADED], ids=["graded", "not-loaded"])
def test_junit_counts_are_the_elements_they_count(result):
    root = junit_root(result)
    for element in [root, *root.findall("testsuite")]:
        cases = element.findall(".//testcase")
        assert int(element.get("tests")) == len(cases)
        assert int(element.get("failures")) == len(element.findall(".//failure"))
        assert int(element.get("errors")) == len(element.findall(".//error"))
    assert int(root.get("errors")) == (len(QUESTIONS) if result.load_error else 0)


def test_text_report_mentions_one_diagnosis_id_and_hint_before_the_failures():
    text = to_text(RESULT)
    assert f"[{NO_SCALE.id}]" in text and NO_SCALE.hint in text
    assert f"[{WRONG_AXIS.id}]" not in text  # found as often, but later: suppressed
    assert text.index(NO_SCALE.hint) < text.index("values differ at [0, 1]")


def test_text_report_marks_questions_and_counts_tests():
    lines = to_text(RESULT).splitlines()
    softmax = next(line for line in lines if "Q1 softmax" in line)
    attention = next(line for line in lines if "Q2 scaled_dot_product_attention" in line)
    mask = next(line for line in lines if "Q3 causal_mask" in line)
    assert softmax.startswith("ok") and "(1/1 tests)" in softmax
    assert attention.startswith("FAIL") and "(1/2 tests)" in attention
    assert "not run" in mask


def test_text_report_header_and_footer():
    text = to_text(RESULT)
    assert text.startswith("hw1_scaled_attention: scaled_attention.py\nScore: 1.35 / 6\n")
    assert "grader 0.1.0" in text
    assert "isolation" not in text and "bubblewrap" not in text  # grader jargon: in the instructor's JSON only
    assert to_dict(RESULT)["isolation"] == "bubblewrap"


def test_json_dict_carries_every_field():
    data = to_dict(RESULT)
    assert (data["score"], data["raw_score"], data["max_score"], data["days_late"]) == (1.35, 3.0, 6.0, 1)
    assert data["import_violations"] == ["torch"]
    assert data["questions"][1]["tests"][0]["diagnoses"] == [NO_SCALE.id, WRONG_AXIS.id]
    assert json.loads(FORMATS["json"].render(RESULT)) == data


def test_every_format_returns_text_ending_in_a_newline():
    for name, report_format in FORMATS.items():
        assert report_format.render(RESULT).endswith("\n"), name


def test_results_carried_forward_from_a_wrong_upstream_function_are_explained():
    carried = TestResult("test_large", "scaled_dot_product_attention", 1.0, "Large scores", PASSED, carried_from=("softmax",))
    question = QuestionScore("scaled_dot_product_attention", 2, 3.0, 3.0, (carried, ALSO_PASSING))
    result = GradeResult("hw1_scaled_attention", "s.py", (question,), 3.0, 3.0, 3.0)
    text = to_text(result)
    assert "1 test passes because its result follows from your `softmax`" in text
    assert "error carried forward" in to_gradescope_dict(result)["tests"][0]["output"]
    assert to_dict(result)["questions"][0]["tests"][0]["carried_from"] == ["softmax"]
    assert "follows from" not in to_text(RESULT)


# --- the same feedback in English and in Chinese --------------------------------------------

#: What must read the same in every language: numbers, shapes and diagnosis ids.
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?")
SHAPE = re.compile(r"\((?:\d+, )*\d*,?\)")
DIAGNOSIS_ID = re.compile(r"\b[a-z_]+\.[a-z_]+\b")
#: Three English words in a row: a sentence the catalog should have translated.
ENGLISH_RUN = re.compile(r"[A-Za-z]{2,}(?:[ ,;:'-]+[A-Za-z]{2,}){2,}")
SEED = 7
TAG = re.compile(r"<[^>]*>")


@pytest.fixture(scope="module")
def sample_results(tmp_path_factory) -> dict[str, GradeResult]:
    """The hw1 sample class (solution, stub, buggy and broken entries), graded once with a fixed seed."""
    from autograder.config import load_course
    from autograder.demo.sample_class import write_sample_class
    from autograder.grade.api import grade_submission
    from autograder.paths import PROJECT_ROOT

    course = load_course(PROJECT_ROOT / "course.yml")
    folder = tmp_path_factory.mktemp("class")
    students = write_sample_class(course, "hw1_scaled_attention", folder)
    return {s: grade_submission(course, "hw1_scaled_attention", next(folder.glob(s + "*")), seed=SEED) for s in students}


def _facts(text: str) -> tuple:
    return (sorted(NUMBER.findall(text)), sorted(SHAPE.findall(text)), sorted(set(DIAGNOSIS_ID.findall(text))))


@pytest.mark.parametrize("report_format", ["text", "gradescope", "junit", "html"])
def test_feedback_in_chinese_shows_the_same_numbers_shapes_and_ids_as_in_english(sample_results, report_format):
    render = FORMATS[report_format].render
    for student, result in sample_results.items():
        english, chinese = render(result, "en"), render(result, "zh")
        failed = result.load_error or any(q.failed_tests for q in result.questions)
        assert chinese != english or (report_format == "junit" and not failed), student
        if report_format == "gradescope":  # Gradescope's JSON escapes Chinese: compare what it holds
            english, chinese = json.dumps(json.loads(english), ensure_ascii=False), json.dumps(json.loads(chinese), ensure_ascii=False)
        if report_format == "html":  # the page's text, not its markup and pictures
            english, chinese = html.unescape(TAG.sub(" ", english)), html.unescape(TAG.sub(" ", chinese))
        assert _facts(chinese) == _facts(english), student


#: Sample students whose feedback quotes English they or Python wrote: the stub's NotImplementedError message,
#: Python's own words for a notebook that is not JSON and for a syntax error.
QUOTING_STUDENTS = {"ben", "max", "nia"}


def test_chinese_feedback_leaves_no_english_sentence_but_what_the_student_wrote(sample_results):
    # the one bug named (a test whose d_k is 2 or 3 cannot tell no scaling from a rounded root: it states a condition)
    assert [d for d in sample_results["chen"].diagnoses if not d.startswith("observed.")] == ["attention.no_scaling"]
    ivy = sample_results["ivy"].questions  # her variance experiment loops forever
    assert next(q for q in ivy if q.function == "dot_product_variance").tests[0].kind == "timeout"  # said in Chinese too
    for student, result in sample_results.items():
        if student not in QUOTING_STUDENTS:
            assert ENGLISH_RUN.findall(to_text(result, "zh")) == [], student
    assert ENGLISH_RUN.findall(to_text(sample_results["chen"], "en"))  # the check would see English


def test_the_instructors_json_record_is_the_same_in_every_language(sample_results):
    for result in sample_results.values():
        record = FORMATS["json"].render(result, "zh")
        assert record == FORMATS["json"].render(result, "en") and json.loads(record) == json.loads(json.dumps(to_dict(result)))


def test_feedback_rendered_again_from_the_record_is_the_same_in_chinese(sample_results):
    from autograder.grade.record import from_record, to_record

    for result in sample_results.values():
        again = from_record(json.loads(json.dumps(to_record(result))))
        result = dataclasses.replace(result, execution_time=again.execution_time)  # the record keeps milliseconds
        assert to_text(again, "zh") == to_text(result, "zh") and to_text(again, "en") == to_text(result, "en")


def test_a_record_without_catalog_ids_shows_its_english_in_any_language(sample_results):
    from autograder.grade.record import from_record, to_record

    record = json.loads(json.dumps(to_record(sample_results["chen"])))
    for question in record["questions"]:
        for test in question["tests"]:
            test.pop("i18n", None)
            test.pop("i18n_hints", None)
    old = from_record(record)
    chinese = to_text(old, "zh")
    assert "attention.no_scaling" in chinese and "Your attention does not divide the scores" in chinese


def _floats(data) -> list[float]:
    """Every float in JSON data, nested ones included."""
    if isinstance(data, float):
        return [data]
    if isinstance(data, dict):
        return [f for value in data.values() for f in _floats(value)]
    if isinstance(data, list):
        return [f for value in data for f in _floats(value)]
    return []


def test_numbers_in_the_json_reports_are_rounded_to_the_scores_decimals():
    from autograder.config import load_course
    from autograder.report.text import to_json
    from autograder.scoring import SCORE_DECIMALS

    policy = load_course().late_policy
    days = next((d for d in range(1, policy.max_days_late + 1) if round(d * policy.penalty_per_day, SCORE_DECIMALS)
                 != d * policy.penalty_per_day), None)
    fraction = days * policy.penalty_per_day if days else 0.1 + 0.2  # a product float arithmetic cannot hold exactly
    third = TestResult("test_third", "softmax", 1 / 3, "A third of the weight", PASSED)
    result = dataclasses.replace(RESULT, penalties=(Penalty("late", fraction),), questions=(
        dataclasses.replace(QUESTIONS[0], tests=(PASSING, third)), *QUESTIONS[1:]))
    for text in (to_json(result), to_gradescope(result)):
        numbers = _floats(json.loads(text))
        assert numbers and all(value == round(value, SCORE_DECIMALS) for value in numbers), text
        assert repr(fraction) not in text or repr(fraction) == repr(round(fraction, SCORE_DECIMALS))
    record = json.loads(to_json(result))
    assert record["penalties"][0]["fraction"] == round(fraction, SCORE_DECIMALS)
    assert record["questions"][0]["tests"][1]["weight"] == round(1 / 3, SCORE_DECIMALS)


#: The issue's bound on a one-bug submission's report (its failed question's block, as printed).
ONE_BUG_LINES = 10


def test_a_graded_one_bug_report_is_as_long_as_its_record_says_and_short(sample_results):
    from autograder.report.cases import failing_cases
    from autograder.report.text import question_diagnoses

    result = sample_results["chen"]  # one bug: the scores are not scaled
    text = to_text(result).splitlines()
    for question in (q for q in result.questions if q.failed_tests):
        start = next(i for i, line in enumerate(text) if line.startswith("FAIL") and f"Q{question.number} " in line)
        block = list(itertools.takewhile(lambda line: line.startswith(" "), text[start + 1:]))
        cases = failing_cases(question.failed_tests)
        printed = sum(str(case.message).count("\n") + 1 for case in cases.shown)
        carried = any(t.passed and t.carried_from for t in question.tests)
        assert len(block) == len(question_diagnoses(question)) + printed + bool(cases.same or cases.other) + carried
        assert 1 + len(block) <= ONE_BUG_LINES
        assert len(question.failed_tests) == sum(len(c.tests) for c in cases.shown) + cases.same + cases.other
