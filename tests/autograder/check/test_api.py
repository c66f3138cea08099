"""The public checks, run the way students run them: solutions pass, stubs fail with a clear message."""

import pytest

from autograder.build.markers import keep_solutions
from autograder.build.notebook import render_notebook
from autograder.check.api import check_submission, format_check, public_test_file
from autograder.config import load_course
from autograder.errors import GraderError
from autograder.paths import ASSIGNMENTS_DIR, NOTEBOOK_SOURCE, SOLUTIONS_DIR

pytestmark = pytest.mark.slow
COURSE = load_course()
IDS = [a.id for a in COURSE.assignments]


def _solution(assignment_id: str) -> str:
    assignment = COURSE.assignment(assignment_id)
    return keep_solutions((SOLUTIONS_DIR / assignment_id / assignment.module).read_text(encoding="utf-8"))


@pytest.mark.parametrize("assignment_id", IDS)
def test_solution_passes_every_public_check(assignment_id, tmp_path):
    assignment = COURSE.assignment(assignment_id)
    (tmp_path / assignment.module).write_text(_solution(assignment_id), encoding="utf-8")
    report = check_submission(COURSE, assignment_id, tmp_path)
    assert report.load_error is None
    assert all(q.tests and not q.failed_tests for q in report.questions), format_check(report)
    assert report.score == report.max_score == assignment.max_points


@pytest.mark.parametrize("assignment_id", IDS)
def test_untouched_stub_fails_every_question_with_not_implemented(assignment_id):
    assignment = COURSE.assignment(assignment_id)
    report = check_submission(COURSE, assignment_id, ASSIGNMENTS_DIR / assignment_id / assignment.module)
    assert report.score == 0
    for question in report.questions:
        assert question.tests, f"no public check for {question.function}"
        assert {t.kind for t in question.tests} == {"not_implemented"}
        assert all(f"{question.function}: not implemented yet" in t.message for t in question.tests)


def test_solution_notebook_passes_the_public_checks(tmp_path):
    assignment = COURSE.assignment(IDS[0])
    notebook_source = (SOLUTIONS_DIR / IDS[0] / NOTEBOOK_SOURCE).read_text(encoding="utf-8")
    notebook = render_notebook(notebook_source, _solution(IDS[0]), questions=assignment.questions)
    (tmp_path / assignment.notebook).write_text(notebook, encoding="utf-8")
    report = check_submission(COURSE, IDS[0], tmp_path / assignment.notebook)
    assert report.score == assignment.max_points, format_check(report)


def test_a_wrong_answer_is_explained(tmp_path):
    assignment = COURSE.assignment(IDS[0])
    wrong = _solution(IDS[0]).replace("scores = scores / math.sqrt(d_k)", "scores = scores")
    (tmp_path / assignment.module).write_text(wrong, encoding="utf-8")
    text = format_check(check_submission(COURSE, IDS[0], tmp_path))
    assert "FAIL  Q3 scaled_dot_product_attention" in text
    assert "expected 0.4519" in text


def test_syntax_error_is_reported_not_raised(tmp_path):
    assignment = COURSE.assignment(IDS[0])
    (tmp_path / assignment.module).write_text("def softmax(:\n", encoding="utf-8")
    report = check_submission(COURSE, IDS[0], tmp_path)
    assert report.score == 0 and "does not parse" in report.load_error


def test_missing_release_is_a_grader_error(tmp_path):
    with pytest.raises(GraderError, match="attn-course build"):
        public_test_file(COURSE, IDS[0], releases_dir=tmp_path)


def test_checking_the_repository_root_checks_the_release_not_the_masters():
    from autograder.paths import PROJECT_ROOT

    report = check_submission(COURSE, IDS[0], PROJECT_ROOT)
    assert report.origin.endswith(f"assignments/{IDS[0]}/{COURSE.assignment(IDS[0]).module}"), report.origin
    assert report.score == 0


def test_a_completed_notebook_beside_the_untouched_stub_module_is_what_gets_checked(tmp_path):
    assignment = COURSE.assignment(IDS[0])
    (tmp_path / assignment.module).write_text((ASSIGNMENTS_DIR / IDS[0] / assignment.module).read_text(encoding="utf-8"))
    notebook_source = (SOLUTIONS_DIR / IDS[0] / NOTEBOOK_SOURCE).read_text(encoding="utf-8")
    (tmp_path / assignment.notebook).write_text(render_notebook(notebook_source, _solution(IDS[0]), questions=assignment.questions), encoding="utf-8")
    report = check_submission(COURSE, IDS[0], tmp_path)
    assert report.origin.endswith(assignment.notebook) and report.score == assignment.max_points, format_check(report)


def test_a_public_case_with_a_generator_gives_the_same_answer_every_time_it_runs(tmp_path):
    assignment = COURSE.assignment(IDS[0])
    (tmp_path / assignment.module).write_text(_solution(IDS[0]), encoding="utf-8")
    for _ in range(2):  # the same process runs the public checks twice
        report = check_submission(COURSE, IDS[0], tmp_path)
        assert report.score == assignment.max_points, format_check(report)
