"""check shows the import policy as the loss it will be at grading, and exits 1 for it; grading agrees."""

from __future__ import annotations

import pytest

from autograder.build.markers import keep_solutions
from autograder.check.api import check_dict, check_submission, format_check
from autograder.config import load_course
from autograder.i18n import render
from autograder.paths import SOLUTIONS_DIR

COURSE = load_course()
HW1 = COURSE.assignment("hw1_scaled_attention")
PERCENT = f"{COURSE.defaults.disallowed_import_penalty * 100:g}"
SOLUTION = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))


def _with_line_after_numpy(line: str) -> tuple[str, int]:
    """The solution with ``line`` right after its numpy import, and that line's number."""
    lines = SOLUTION.splitlines()
    at = next(i for i, text in enumerate(lines) if text.startswith("import numpy")) + 1
    lines.insert(at, line)
    return "\n".join(lines) + "\n", at + 1


def _checked(tmp_path, source: str):
    (tmp_path / HW1.module).write_text(source, encoding="utf-8")
    return check_submission(COURSE, HW1.id, tmp_path / HW1.module)


@pytest.mark.slow
def test_an_unused_disallowed_import_passes_every_check_but_is_shown_as_the_loss_and_fails(tmp_path):
    source, line = _with_line_after_numpy("import scipy")
    report = _checked(tmp_path, source)
    assert all(q.tests and not q.failed_tests for q in report.questions)
    assert not report.passed  # what makes check exit 1
    text = format_check(report)
    assert f"−{PERCENT} % at grading: import scipy, line {line}. Remove it and check again" in text
    assert check_dict(report)["losses_at_grading"] == [render(report.losses[0], "en")]


@pytest.mark.slow
def test_the_honest_solution_has_no_loss_and_passes(tmp_path):
    report = _checked(tmp_path, SOLUTION)
    assert report.losses == () and report.passed


@pytest.mark.slow
def test_a_module_reached_through_an_allowed_one_and_code_the_check_cannot_read_are_shown_too(tmp_path):
    assert "numpy" in COURSE.defaults.allowed_imports and "ctypes" not in COURSE.defaults.allowed_imports
    source, line = _with_line_after_numpy("_where = np.ctypeslib.ctypes, math.__spec__")
    text = format_check(_checked(tmp_path, source))
    assert f"import ctypes, line {line}" in text and f"__spec__, line {line}: reaches the import machinery" in text
    assert "Remove them and check again" in text


@pytest.mark.slow
def test_grading_takes_off_what_check_said(tmp_path):
    from autograder.grade.api import grade_submission

    source, _ = _with_line_after_numpy("import scipy")
    report = _checked(tmp_path, source)
    graded = grade_submission(COURSE, HW1.id, tmp_path / HW1.module, seed=1)
    assert [p.fraction for p in graded.penalties] == [COURSE.defaults.disallowed_import_penalty]
    assert report.losses and f"−{PERCENT} %" in render(report.losses[0], "en")
