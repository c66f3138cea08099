"""The sample class follows the masters: every edit applies, and every entry is what its name says."""

from __future__ import annotations

import ast
import json
import zipfile

import pytest

from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.demo.sample_class import (
    BROKEN_ENTRIES,
    BuggyStudent,
    SampleClass,
    SampleClassError,
    buggy_source,
    sample_class,
    write_sample_class,
)
from autograder.paths import ASSIGNMENTS_DIR, SOLUTIONS_DIR

COURSE = load_course()
IDS = [a.id for a in COURSE.assignments]
BUGGY_STUDENTS = sample_class(COURSE.layout).students


def _solution(assignment_id: str) -> str:
    module = COURSE.assignment(assignment_id).module
    return keep_solutions((SOLUTIONS_DIR / assignment_id / module).read_text(encoding="utf-8"))


@pytest.fixture(scope="module", params=IDS)
def sample(request, tmp_path_factory):
    """(assignment, folder, returned names) of a sample class written for each assignment."""
    assignment = COURSE.assignment(request.param)
    folder = tmp_path_factory.mktemp(assignment.id)
    names = write_sample_class(COURSE, assignment.id, folder)
    return assignment, folder, names


def test_every_assignment_has_buggy_students():
    assert set(BUGGY_STUDENTS) == set(IDS)
    assert all(BUGGY_STUDENTS[i] for i in IDS)


def test_the_class_has_one_entry_per_named_student(sample):
    assignment, folder, names = sample
    buggy = {s.name for s in BUGGY_STUDENTS[assignment.id]}
    expected = {"ada", "ben", "gus", "olga", *buggy, *BROKEN_ENTRIES}
    assert sorted(names) == sorted(expected)
    assert len(list(folder.iterdir())) == len(expected)


def test_every_buggy_module_is_valid_python_that_differs_from_the_solution(sample):
    assignment, folder, _ = sample
    solution = _solution(assignment.id)
    for student in BUGGY_STUDENTS[assignment.id]:
        module = (folder / student.name / assignment.module).read_text(encoding="utf-8")
        assert module != solution, student.name
        assert student.new in module, student.name
        ast.parse(module, filename=f"{student.name}/{assignment.module}")


def test_buggy_students_differ_from_each_other(sample):
    assignment, folder, _ = sample
    modules = [(folder / s.name / assignment.module).read_text(encoding="utf-8") for s in BUGGY_STUDENTS[assignment.id]]
    assert len(set(modules)) == len(modules)


def test_ada_is_the_solution_and_ben_the_untouched_stub(sample):
    assignment, folder, _ = sample
    ada = (folder / "ada" / assignment.module).read_text(encoding="utf-8")
    ben = (folder / "ben" / assignment.module).read_text(encoding="utf-8")
    assert ada == _solution(assignment.id)
    assert "### BEGIN SOLUTION" not in ada
    assert ben == (ASSIGNMENTS_DIR / assignment.id / assignment.module).read_text(encoding="utf-8")
    assert ben != ada


def test_gus_is_a_notebook_and_olga_a_zip_of_the_solution(sample):
    assignment, folder, _ = sample
    notebook = json.loads((folder / "gus" / assignment.notebook).read_text(encoding="utf-8"))
    assert notebook["cells"]
    with zipfile.ZipFile(folder / "olga.zip") as archive:
        assert archive.read(f"olga/{assignment.module}").decode("utf-8") == _solution(assignment.id)


def test_the_broken_entries_are_broken(sample):
    assignment, folder, _ = sample
    assert (folder / "kim").is_dir() and not any((folder / "kim").iterdir())
    assert b"\x00" in (folder / "lee.py").read_bytes()
    with pytest.raises(json.JSONDecodeError):
        json.loads((folder / "max.ipynb").read_text(encoding="utf-8"))
    with pytest.raises(SyntaxError):
        ast.parse((folder / "nia.py").read_text(encoding="utf-8"))


def test_buggy_source_replaces_the_first_occurrence_only():
    student = BuggyStudent("zoe", "a bug", "b = 1", "b = 2")
    assert buggy_source("a = 0\nb = 1\nb = 1\n", student) == "a = 0\nb = 2\nb = 1\n"


def test_buggy_source_raises_when_the_master_lacks_the_edited_text():
    student = BuggyStudent("zoe", "forgets something", "scores = scores / math.sqrt(d_k)", "scores = scores")
    with pytest.raises(SampleClassError, match="zoe"):
        buggy_source(_solution("hw2_rnn_attention"), student)


def test_write_sample_class_fails_when_an_edit_no_longer_applies(tmp_path, monkeypatch):
    stale = BuggyStudent("zoe", "edits a line that is gone", "this line is not in any master", "x")
    import autograder.demo.sample_class as module

    known = SampleClass({IDS[0]: (*BUGGY_STUDENTS[IDS[0]], stale)})
    monkeypatch.setattr(module, "sample_class", lambda layout: known)
    with pytest.raises(SampleClassError, match="zoe"):
        write_sample_class(COURSE, IDS[0], tmp_path / "class")


@pytest.mark.slow
def test_a_student_whose_only_bug_is_in_softmax_loses_only_softmax_points(tmp_path):
    from autograder.grade.api import grade_submission

    hw1 = COURSE.assignment("hw1_scaled_attention")
    eli = next(s for s in BUGGY_STUDENTS[hw1.id] if s.name == "eli")
    path = tmp_path / hw1.module
    path.write_text(buggy_source(_solution(hw1.id), eli), encoding="utf-8")
    assert "def scaled_dot_product_attention" in path.read_text() and "softmax(scores" in path.read_text()
    result = grade_submission(COURSE, hw1.id, path, seed=2027)
    lost = {q.function: q.points - q.score for q in result.questions}
    assert lost["softmax"] > 0 and all(v == 0 for f, v in lost.items() if f != "softmax"), lost
    attention = next(q for q in result.questions if q.function == "scaled_dot_product_attention")
    assert any(t.carried_from == ("softmax",) for t in attention.tests)


def test_a_sample_class_file_not_in_its_form_is_named(tmp_path):
    from autograder.layout import CourseDirectory

    (tmp_path / "sample_class.yml").write_text("students:\n  hw1:\n  - {name: zoe}\n", encoding="utf-8")
    layout = CourseDirectory(COURSE.layout.course_file, tmp_path, tmp_path, tmp_path, tmp_path)
    with pytest.raises(SampleClassError, match="sample_class.yml"):
        sample_class(layout)
