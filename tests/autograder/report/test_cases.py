"""Short reports: a few failing cases that differ, the others counted truthfully, tolerances said once, all on --verbose."""

from __future__ import annotations

import re

import numpy as np
import pytest

from autograder.config import load_course
from autograder.engine.results import FAILED, Diagnosis, TestResult
from autograder.grade.result import GradeResult
from autograder.i18n import msg
from autograder.judge.compare import Parts, Tolerance, contract, find_difference
from autograder.judge.messages import describe
from autograder.report.cases import failing_cases, failure_way
from autograder.report.chosen import SHOWN_CASES
from autograder.report.text import question_feedback, to_text
from autograder.scoring import QuestionScore

TOL = Tolerance(rtol=1e-5, atol=1e-8)
LOOSE = Tolerance(rtol=1e-4, atol=1e-6)
SEEN = Diagnosis("observed.relation", "Compared with the expected result: it is the expected one times 2.")
HOSTILE = '<b onmouseover="x">dQ</b>|[a](javascript:x)'
TRACE = ('Traceback (most recent call last):\n  File "s.py", line 9, in f\n    return a @ b\n'
         "ValueError: matmul: mismatch (size {} is different from 2)")


def _several_outputs() -> tuple[str, int]:
    """A graded function of the course returning several named parts, and how many (course facts from course.yml)."""
    for assignment in load_course().assignments:
        for question in assignment.questions:
            names = contract(question.function).output_names
            if len(names) >= 3:
                return question.function, len(names)
    pytest.skip("no graded function with three outputs in course.yml")


FUNCTION, PARTS = _several_outputs()


def wrong(part: int, factor: float = 2.0, size: int = 4, tol: Tolerance = TOL, shape: bool = False):
    """A real failure message of ``FUNCTION``: part ``part`` scaled by ``factor`` (or of another shape)."""
    expected = [np.linspace(1.0, 2.0, size) for _ in range(PARTS)]
    actual = [a.copy() for a in expected]
    actual[part] = np.zeros(size + 1) if shape else actual[part] * factor
    problem = describe(find_difference(Parts(True, tuple(expected)), tuple(actual), tol), FUNCTION, (), {}, True, tol)
    return msg("{what}: {problem}", what=f"{FUNCTION} call {size}", problem=problem)


def failed(name: str, message, *diagnoses, kind: str = "mismatch") -> TestResult:
    return TestResult(name, FUNCTION, 1.0, f"checks {name}", FAILED, message=message, kind=kind, diagnoses=diagnoses)


def question(*tests: TestResult) -> QuestionScore:
    return QuestionScore(FUNCTION, 1, 5.0, 0.0, tests)


def same_way_tests(count: int) -> list[TestResult]:
    """``count`` failures of one kind (the first output scaled) from tests of a few parametrised classes."""
    return [failed(f"test_class{i % 4}[{i}]", wrong(0, size=3 + i), SEEN) for i in range(count)]


def _counted(line: str, word: str) -> int:
    found = re.search(rf"(\d+) more tests? fails? {word}", line)
    return int(found.group(1)) if found else 0


def test_a_long_list_of_failures_alike_shows_a_few_from_different_tests_and_counts_the_rest_as_the_same_way():
    tests = same_way_tests(3 * SHOWN_CASES + 2)
    lines = question_feedback(question(*tests))
    cases = [line for line in lines if line.startswith("- ") and " more test" not in line]
    assert 1 <= len(cases) <= SHOWN_CASES
    assert len({line.split(":")[0] for line in cases}) == len(cases)  # from different tests
    summary = next(line for line in lines if " more test" in line)
    assert _counted(summary, "the same way") == len(tests) - len(cases) and "differently" not in summary
    assert lines[0].startswith("Observed: ")  # the observation first


def test_failures_of_other_outputs_are_shown_first_and_those_left_out_counted_as_failing_differently():
    tests = [*same_way_tests(2), failed("test_other", wrong(1, size=5)), failed("test_shape", wrong(2, shape=True)),
             failed("test_raises", TRACE.format(7), kind="mismatch"), failed("test_last", wrong(1, factor=-1.0, shape=True)),
             *same_way_tests(3)]
    cases = failing_cases(tests)
    assert len(cases.shown) == SHOWN_CASES
    shown_ways = {failure_way(case.tests[0]) for case in cases.shown}
    assert len(shown_ways) == SHOWN_CASES  # each shows another way of failing
    left = [t for t in tests if not any(t is shown for case in cases.shown for shown in case.tests)]
    alike = [t for t in left if failure_way(t) in shown_ways]
    assert (cases.same, cases.other) == (len(alike), len(left) - len(alike)) and cases.other > 0
    summary = next(line for line in question_feedback(question(*tests)) if " more test" in line)
    assert _counted(summary, "the same way") == cases.same and _counted(summary, "differently") == cases.other


def test_a_traceback_from_the_same_place_is_shown_once_whatever_test_raised_it():
    tests = [failed(f"test_{i}", msg("{what}: {problem}", what=f"call {i}", problem=TRACE.format(i + 3))) for i in range(4)]
    lines = question_feedback(question(*tests))
    assert sum("Traceback" in line for line in lines) == 1 and lines[-1] == f"- {len(tests) - 1} more tests fail the same way"


def test_the_same_problem_on_many_tests_is_printed_once_with_its_count():
    in_place = msg("the call changed its argument {argument} in place", argument="x")
    tests = [failed(f"test_{i}", msg("{what}: {problem}", what=f"call {i}", problem=in_place), kind="contract")
             for i in range(8)]
    lines = question_feedback(question(*tests))
    assert [line for line in lines if "in place" in line] == [f"- {len(tests)} tests: {in_place}"]


def test_the_tolerance_is_said_once_per_question_and_once_per_report_when_every_question_shares_it():
    failing = [failed(f"test_{i}", wrong(i % PARTS, size=3 + i)) for i in range(2 * SHOWN_CASES)]
    tolerance = f"rtol={TOL.rtol:g}, atol={TOL.atol:g}"
    lines = question_feedback(question(*failing))
    assert sum(tolerance in line for line in lines) == 1 and "rtol" not in " ".join(lines[:-1])
    other = QuestionScore(FUNCTION, 2, 5.0, 0.0, tuple(failing))
    report = to_text(GradeResult("hw", "s.py", (question(*failing), other), 10.0, 0.0, 0.0))
    assert report.count(tolerance) == 1
    looser = QuestionScore(FUNCTION, 2, 5.0, 0.0, (failed("test_loose", wrong(0, tol=LOOSE)),))
    report = to_text(GradeResult("hw", "s.py", (question(*failing), looser), 10.0, 0.0, 0.0))
    assert report.count(tolerance) == 1 and report.count(f"rtol={LOOSE.rtol:g}, atol={LOOSE.atol:g}") == 1


def test_a_case_compared_with_another_tolerance_keeps_its_own_and_each_tolerance_is_said_once():
    tests = [failed("test_a", wrong(0)), failed("test_b", wrong(1, tol=LOOSE)), failed("test_c", wrong(2, size=6))]
    lines = question_feedback(question(*tests))
    loose, usual = f"rtol={LOOSE.rtol:g}, atol={LOOSE.atol:g}", f"rtol={TOL.rtol:g}, atol={TOL.atol:g}"
    assert sum(loose in line for line in lines) == 1 and loose in next(line for line in lines if "checks test_b" in line)
    assert sum(usual in line for line in lines) == 1 and lines[-1].startswith("Tolerance") and usual in lines[-1]


def test_verbose_shows_every_failing_case_and_counts_none():
    tests = [*same_way_tests(2 * SHOWN_CASES), failed("test_other", wrong(1, size=9))]
    everything = question_feedback(question(*tests), verbose=True)
    assert len([line for line in everything if line.startswith("- ")]) == len(tests)
    assert not any(" more test" in line for line in everything)
    assert all(f"checks {t.name}" in "\n".join(everything) for t in tests)


def test_the_short_report_of_a_question_is_as_long_as_its_record_says():
    tests = [*same_way_tests(2 * SHOWN_CASES), failed("test_other", wrong(1, size=9))]
    q = question(*tests)
    cases = failing_cases(q.failed_tests)
    report = to_text(GradeResult("hw", "s.py", (q,), 5.0, 0.0, 0.0)).splitlines()
    block = report[report.index(next(line for line in report if line.startswith("FAIL"))) + 1:]
    block = block[:block.index("")]
    diagnoses = len({d.id for t in tests for d in t.diagnoses})
    assert len(block) == diagnoses + len(cases.shown) + bool(cases.same or cases.other)


def test_student_text_in_a_shortened_message_stays_escaped_in_html_and_markdown():
    from autograder.export.actions_report import summary_markdown
    from autograder.report.html import to_html

    problem = msg("{name} differs{tolerance}: {first}", name=HOSTILE, first="x",
                  tolerance=msg(" (rtol={rtol}, atol={atol})", rtol="<i>", atol="1"))
    tests = [failed(f"test_{i}", msg("{what}: {problem}", what=HOSTILE, problem=problem)) for i in range(5)]
    result = GradeResult("hw", "s.py", (question(*tests),), 5.0, 0.0, 0.0)
    page = to_html(result)
    assert "<b onmouseover" not in page and "<i>" not in page and "&lt;b onmouseover" in page
    summary = summary_markdown(result)
    assert not re.search(r"(?<!\\)<b onmouseover", summary) and "](javascript" not in summary
