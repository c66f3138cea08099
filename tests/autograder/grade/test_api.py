"""grade_submission end to end: solutions full marks, stubs zero, penalties applied once and stated."""

import datetime as dt
import zipfile

import pytest

from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.errors import GraderError
from autograder.grade.api import grade_submission, hidden_test_files
from autograder.paths import ASSIGNMENTS_DIR, SOLUTIONS_DIR

pytestmark = pytest.mark.slow
COURSE = load_course()
IDS = [a.id for a in COURSE.assignments]


def _solution(assignment_id: str) -> str:
    assignment = COURSE.assignment(assignment_id)
    return keep_solutions((SOLUTIONS_DIR / assignment_id / assignment.module).read_text(encoding="utf-8"))


def _write(tmp_path, assignment_id: str, text: str):
    path = tmp_path / COURSE.assignment(assignment_id).module
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("assignment_id", IDS)
def test_the_solution_gets_full_marks_under_the_sandbox(assignment_id, tmp_path):
    result = grade_submission(COURSE, assignment_id, _write(tmp_path, assignment_id, _solution(assignment_id)))
    assert result.score == result.max_score == COURSE.assignment(assignment_id).max_points
    assert result.isolation == "bwrap" and not result.penalties and not result.diagnoses


@pytest.mark.parametrize("assignment_id", IDS)
def test_the_untouched_stub_gets_zero_with_not_implemented_everywhere(assignment_id):
    assignment = COURSE.assignment(assignment_id)
    result = grade_submission(COURSE, assignment_id, ASSIGNMENTS_DIR / assignment_id / assignment.module)
    assert result.score == 0 and result.load_error is None
    assert {t.kind for q in result.questions for t in q.tests} == {"not_implemented"}


def test_a_zipped_folder_is_graded_like_the_module(tmp_path):
    archive = tmp_path / "student.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("student/scaled_attention.py", _solution(IDS[0]))
    assert grade_submission(COURSE, IDS[0], archive).score == COURSE.assignment(IDS[0]).max_points


def test_a_disallowed_import_costs_the_configured_penalty(tmp_path):
    solution = _solution(IDS[0])
    path = _write(tmp_path, IDS[0], solution + "\nimport os\n")
    import_line = len(solution.splitlines()) + 2
    result = grade_submission(COURSE, IDS[0], path)
    fraction = COURSE.defaults.disallowed_import_penalty
    assert result.raw_score == result.max_score
    assert result.score == pytest.approx(result.max_score * (1 - fraction))
    assert result.import_violations == ("os",) and f"os (line {import_line})" in result.penalties[0].reason


def test_lateness_costs_the_policy_per_started_day(tmp_path):
    assignment = COURSE.assignment(IDS[0])
    policy = COURSE.late_policy
    late = assignment.due + dt.timedelta(minutes=policy.grace_period_minutes, days=1, seconds=1)  # into day 2
    result = grade_submission(COURSE, IDS[0], _write(tmp_path, IDS[0], _solution(IDS[0])), submitted_at=late)
    assert result.days_late == 2
    assert result.score == pytest.approx(result.max_score * (1 - 2 * policy.penalty_per_day))


def test_missing_hidden_tests_stop_the_grader(tmp_path):
    with pytest.raises(GraderError, match="no hidden tests"):
        hidden_test_files(COURSE.assignment(IDS[0]), tests_dir=tmp_path)


def _dot_score_scaled_by(factor: float, tmp_path):
    hw2 = "hw2_rnn_attention"
    source = _solution(hw2).replace("    return scores[..., 0]  # (..., T, 1) -> (..., T)",
                                    f"    return scores[..., 0] * {factor!r}  # (..., T, 1) -> (..., T)")
    assert source != _solution(hw2)
    result = grade_submission(COURSE, hw2, _write(tmp_path, hw2, source), seed=7)
    return next(q for q in result.questions if q.function == "dot_score")


def test_the_course_tolerance_is_relative_rtol_plus_absolute_atol(tmp_path):
    # course.yml: rtol 1e-5, atol 1e-8. A relative error of 9e-6 is inside rtol for every score;
    # as an absolute error it exceeds 1e-5 wherever |score| > 1.2, so swapped tolerances would fail it.
    assert (COURSE.defaults.rtol, COURSE.defaults.atol) == (1e-5, 1e-8)
    dot = _dot_score_scaled_by(1 + 9e-6, tmp_path)
    assert dot.score == dot.points, [t.message for t in dot.failed_tests]
    assert _dot_score_scaled_by(1 + 5e-5, tmp_path).score < dot.points


def _jupytext_export(assignment_id: str) -> str:
    """The solved notebook as jupytext exports it to a .py file: plots, experiments and all, at top level."""
    import jupytext

    from autograder.build.notebook import render_notebook
    from autograder.build.release import load_context

    assignment = COURSE.assignment(assignment_id)
    context = load_context(COURSE, assignment_id)
    document = render_notebook(context.notebook_source, keep_solutions(context.master_module), "notebook", assignment.questions)
    return jupytext.writes(jupytext.reads(document, fmt="ipynb"), fmt="py:percent")


def test_a_notebook_exported_to_py_with_plots_keeps_its_functions_and_names_the_missing_module(tmp_path):
    export = _jupytext_export(IDS[0])
    assert "import matplotlib.pyplot as plt" in export
    result = grade_submission(COURSE, IDS[0], _write(tmp_path, IDS[0], export))
    assert result.load_error is None and result.raw_score == result.max_score
    assert [p.fraction for p in result.penalties] == [COURSE.defaults.disallowed_import_penalty]
    line = export.splitlines().index("import matplotlib.pyplot as plt") + 1
    missing = [n for n in result.load_notes if n.startswith("Not available when grading")]
    assert len(missing) == 1 and f"matplotlib (line {line})" in missing[0]
    assert "plt" not in "".join(n for n in result.load_notes if not n.startswith("Not available"))


def test_a_notebook_whose_graded_cell_does_not_parse_says_which_cell_and_grades_the_rest(tmp_path):
    import json

    assignment = COURSE.assignment(IDS[0])
    document = json.loads((ASSIGNMENTS_DIR / IDS[0] / assignment.notebook).read_text(encoding="utf-8"))
    number, cell = next((n, c) for n, c in enumerate(document["cells"], 1) if "softmax" in c["metadata"].get("tags", []))
    cell["source"] = "def softmax(x, axis=-1):\n    return (x\n"
    path = tmp_path / assignment.notebook
    path.write_text(json.dumps(document), encoding="utf-8")
    result = grade_submission(COURSE, IDS[0], path)
    assert result.load_notes[0].startswith(f"cell {number} (the `softmax` cell) does not parse: line 2: ")
    assert result.load_error is None


def test_a_notebook_without_code_cells_says_so(tmp_path):
    path = tmp_path / COURSE.assignment(IDS[0]).notebook
    path.write_text('{"cells": [{"cell_type": "markdown", "source": "my answers"}], "nbformat": 4}', encoding="utf-8")
    result = grade_submission(COURSE, IDS[0], path)
    assert result.score == 0 and result.load_error == f"{path.name} has no code cells: write your functions in the notebook's code cells"
