"""The grading step's report: a Markdown row per question with its diagnoses, outputs, and no seed."""

from autograder.engine.results import Diagnosis, TestResult
from autograder.export.actions_report import step_outputs, summary_markdown
from autograder.grade.result import GradeResult
from autograder.scoring import QuestionScore


def _result() -> GradeResult:
    failed = TestResult("test_a", "softmax", 1.0, "rows | sum to one", "failed", "wrong | value", "mismatch",
                        (Diagnosis("softmax.no_max_shift", "shift by the max"),))
    passed = TestResult("test_b", "softmax", 1.0, "ok", "passed")
    questions = (QuestionScore("softmax", 1, 2.0, 1.0, (failed, passed)), QuestionScore("causal_mask", 2, 1.0, 1.0, (passed,)))
    return GradeResult("hw1", "nb.ipynb", questions, 3.0, 2.0, 2.0, seed=123456789)


def test_one_row_per_question_with_the_diagnoses_and_escaped_pipes():
    text = summary_markdown(_result())
    rows = [line for line in text.splitlines() if line.startswith("| Q") and not line.startswith("| Question")]
    assert len(rows) == 2 and rows[0].startswith("| Q1 | `softmax` | 1 / 2 | 1/2 |")
    assert "softmax.no_max_shift" in rows[0] and "wrong \\| value" in rows[0] and rows[0].count(" | ") == 4
    assert "all tests passed" in rows[1] and "123456789" not in text


def test_the_outputs():
    assert step_outputs(_result()) == {"score": "2", "max_score": "3", "diagnoses": "softmax.no_max_shift"}


def test_the_summary_in_chinese_keeps_the_ids_and_numbers():
    from autograder.i18n import msg, render

    chinese = summary_markdown(_result(), "zh")
    assert render(msg("Question"), "zh") in chinese and "| Question |" not in chinese
    assert "softmax.no_max_shift" in chinese and "| Q1 | `softmax` | 1 / 2 | 1/2 |" in chinese
    assert render(msg("all tests passed"), "zh") in chinese
