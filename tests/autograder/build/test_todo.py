"""What an author left to do: unfilled scaffold placeholders always stop a build, untranslated text unless --draft."""

from __future__ import annotations

from autograder.build.todo import todo_problems, unfilled, untranslated
from autograder.config import load_course
from autograder.layout import CourseDirectory
from autograder.scaffold import texts

ASSIGNMENT = load_course().assignments[0]


def _course(tmp_path, notebook: str = "# %% [markdown]\n# Hello\n", solution: str = "def f():\n    return 1\n"):
    root = tmp_path / "course"
    masters = root / "solutions" / ASSIGNMENT.id
    masters.mkdir(parents=True)
    (masters / "notebook.py").write_text(notebook, encoding="utf-8")
    (masters / ASSIGNMENT.module).write_text(solution, encoding="utf-8")
    (masters / "docstrings.zh.yml").write_text("module: |\n  x\nfunctions: {}\n", encoding="utf-8")
    (root / "hidden_tests" / ASSIGNMENT.id).mkdir(parents=True)
    (root / "reference").mkdir()
    return CourseDirectory(root / "course.yml", root / "solutions", root / "assignments", root / "hidden_tests", root / "reference")


def test_a_finished_course_has_nothing_to_do(tmp_path):
    assert todo_problems(_course(tmp_path), ASSIGNMENT) == ([], [])


def test_untranslated_text_is_an_error_of_a_release_and_a_warning_of_a_draft(tmp_path):
    layout = _course(tmp_path, notebook=f'# %% [markdown] lang="zh"\n# {texts.UNTRANSLATED} explain\n')
    assert untranslated(layout, ASSIGNMENT) == [f"solutions/{ASSIGNMENT.id}/notebook.py:2"]
    errors, warnings = todo_problems(layout, ASSIGNMENT)
    assert len(errors) == 1 and "notebook.py:2" in errors[0] and warnings == []
    errors, warnings = todo_problems(layout, ASSIGNMENT, draft=True)
    assert errors == [] and len(warnings) == 1 and "--draft" in warnings[0]


def test_an_unfilled_placeholder_is_an_error_even_in_a_draft_and_names_its_line(tmp_path):
    layout = _course(tmp_path, solution='def f():\n    raise NotImplementedError("TODO the solution of f")\n')
    (layout.hidden_suite(ASSIGNMENT.id) / "test_f.py").write_text('def inputs(draw):\n    raise NotImplementedError("TODO draw")\n')
    assert unfilled(layout, ASSIGNMENT) == [f"solutions/{ASSIGNMENT.id}/{ASSIGNMENT.module}:2",
                                            f"hidden_tests/{ASSIGNMENT.id}/test_f.py:2"]
    errors, _ = todo_problems(layout, ASSIGNMENT, draft=True)
    assert len(errors) == 2


def test_a_student_facing_not_implemented_stub_is_no_placeholder(tmp_path):
    layout = _course(tmp_path, solution='def f():\n    raise NotImplementedError("f: not implemented yet")\n')
    assert unfilled(layout, ASSIGNMENT) == []
