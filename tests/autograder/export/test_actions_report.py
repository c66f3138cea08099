"""The grading step's report: a Markdown row per question with its diagnoses, outputs, and no seed."""

from autograder.engine.results import Diagnosis, TestResult
from autograder.export.actions_report import SUMMARY_TEXT_CHARS, step_outputs, summary_markdown
from autograder.grade.result import GradeResult
from autograder.scoring import QuestionScore
from tests.autograder.hostile_text import SUMMARY_TAGS, rendered_markdown

#: Cells of a row of the summary's table: question, function, score, tests passed, feedback.
COLUMNS = 5
#: GitHub refuses a job summary larger than this.
GITHUB_SUMMARY_BYTES = 1024 * 1024


def _result() -> GradeResult:
    failed = TestResult("test_a", "softmax", 1.0, "rows | sum to one", "failed", "wrong | value", "mismatch",
                        (Diagnosis("softmax.no_max_shift", "shift by the max"),))
    passed = TestResult("test_b", "softmax", 1.0, "ok", "passed")
    questions = (QuestionScore("softmax", 1, 2.0, 1.0, (failed, passed)), QuestionScore("causal_mask", 2, 1.0, 1.0, (passed,)))
    return GradeResult("hw1", "nb.ipynb", questions, 3.0, 2.0, 2.0, seed=123456789)


def _rows(markdown: str) -> list[list[str]]:
    """The summary's table as GitHub shows it: a list of cells (their text) per row, the header first."""
    page = rendered_markdown(markdown)
    assert page.tags() <= SUMMARY_TAGS
    cells = page.cells
    assert len(cells) % COLUMNS == 0
    return [cells[start:start + COLUMNS] for start in range(0, len(cells), COLUMNS)]


def test_one_row_per_question_with_the_diagnoses_and_the_pipes_kept_in_their_cell():
    text = summary_markdown(_result())
    header, first, second = _rows(text)
    assert header == ["Question", "Function", "Score", "Tests passed", "Feedback"]
    assert first[:4] == ["Q1", "softmax", "1 / 2", "1/2"] and "| Q1 | `softmax` | 1 / 2 | 1/2 |" in text
    assert first[4] == "Likely bug [softmax.no_max_shift]: shift by the max\n- rows | sum to one: wrong | value"  # the diagnosis first
    assert second == ["Q2", "causal_mask", "1 / 1", "1/1", "all tests passed"] and "123456789" not in text


def test_a_long_message_shows_its_end_and_the_summary_stays_within_githubs_limit():
    lines = "\n" * (3 * SUMMARY_TEXT_CHARS) + "ValueError: the end"
    failed = tuple(TestResult(f"test_{n}", "softmax", 1.0, f"case {n}", "failed", f"{n}{lines}") for n in range(60))
    result = GradeResult("hw1", "nb.ipynb", (QuestionScore("softmax", 1, 2.0, 0.0, failed),), 2.0, 0.0, 0.0)
    text = summary_markdown(result)
    assert len(text.encode("utf-8")) < GITHUB_SUMMARY_BYTES
    feedback = _rows(text)[1][4]
    assert feedback.count("ValueError: the end") == len(failed) and feedback.count("\n") < len(failed) * SUMMARY_TEXT_CHARS


def test_the_outputs():
    assert step_outputs(_result()) == {"score": "2", "max_score": "3", "diagnoses": "softmax.no_max_shift"}


def test_the_summary_in_chinese_keeps_the_ids_and_numbers():
    from autograder.i18n import msg, render

    chinese = summary_markdown(_result(), "zh")
    header, first, second = _rows(chinese)
    assert header[0] == render(msg("Question"), "zh") and "| Question |" not in chinese
    assert first[:4] == ["Q1", "softmax", "1 / 2", "1/2"] and "softmax.no_max_shift" in first[4]
    assert second[4] == render(msg("all tests passed"), "zh")
