"""``attn-course new question``: what it adds to each file of the course, and what it refuses."""

from __future__ import annotations

import ast

import pytest
import yaml

from autograder.build.todo import UNFILLED
from autograder.config import DEFAULT_COURSE_FILE, load_course, parse_course
from autograder.layout import CourseDirectory
from autograder.scaffold import texts
from autograder.scaffold.question import (
    ScaffoldError,
    course_with_question,
    docstrings_with,
    notebook_with_section,
    question_edits,
    reference_init_with,
)

COURSE = load_course()
TEXT = DEFAULT_COURSE_FILE.read_text(encoding="utf-8")
LAYOUT = CourseDirectory.of()


@pytest.mark.parametrize("assignment", COURSE.assignments, ids=lambda a: a.id)
def test_the_course_gains_the_question_last_in_its_assignment_with_its_points_and_keeps_its_comments(assignment):
    changed = parse_course(course_with_question(TEXT, assignment.id, "new_function", 1.5))
    questions = changed.assignment(assignment.id).questions
    assert [q.function for q in questions] == [*assignment.functions, "new_function"] and questions[-1].points == 1.5
    others = {a.id: a for a in changed.assignments if a.id != assignment.id}
    assert others == {a.id: a for a in COURSE.assignments if a.id != assignment.id}
    comments = [line for line in TEXT.splitlines() if line.lstrip().startswith("#")]
    assert [line for line in course_with_question(TEXT, assignment.id, "f", 1).splitlines() if line.lstrip().startswith("#")] == comments


def test_an_unknown_assignment_or_a_block_list_of_questions_is_refused():
    with pytest.raises(ScaffoldError, match="no assignment"):
        course_with_question(TEXT, "hw9_missing", "f", 1)
    data = yaml.safe_load(TEXT)
    block = yaml.safe_dump(data, sort_keys=False)  # questions as `- function: ...` blocks, not flow mappings
    with pytest.raises(ScaffoldError, match="one per line|function: \\.\\.\\., points"):
        course_with_question(block, COURSE.assignments[0].id, "f", 1)


def test_the_reference_package_imports_and_lists_the_function_in_order():
    text = (LAYOUT.reference / "__init__.py").read_text(encoding="utf-8")
    changed = reference_init_with(text, "aaa_first")
    tree = ast.parse(changed)
    listed = next(node.value for node in tree.body if isinstance(node, ast.Assign) and node.targets[0].id == "__all__")
    names = [element.value for element in listed.elts]
    assert names == sorted(names) and "aaa_first" in names
    assert any(isinstance(node, ast.ImportFrom) and node.module == "attn_reference.aaa_first" for node in tree.body)


def test_the_notebook_section_comes_before_the_closing_section_with_a_cell_per_language():
    source = LAYOUT.notebook_source(COURSE.assignments[0].id).read_text(encoding="utf-8")
    changed = notebook_with_section(source, "new_function", "New function", ("en", "zh"))
    assert changed.count('# %% graded="new_function"') == 1
    section, closing = changed.index('# %% graded="new_function"'), changed.rindex("# %% [markdown]\n")
    assert section < closing and changed[closing:] == source[source.rindex("# %% [markdown]\n"):]
    assert f'# %% [markdown] lang="zh"\n# ## New function\n#\n# {texts.UNTRANSLATED}' in changed


def test_the_public_cases_are_not_edited_and_the_worked_example_is_a_todo():
    first = COURSE.assignments[0]
    edits = question_edits(COURSE, TEXT, first.id, "new_function", ("n", "window"))
    assert not [e for e in edits if e.path.name == "public_cases.py"]
    suite = next(e for e in edits if e.path.name == "test_new_function.py")
    assert UNFILLED.search(next(line for line in suite.text.splitlines() if line.startswith("EXAMPLE")))


def test_the_translated_docstrings_gain_an_entry_marked_untranslated():
    path = next(LAYOUT.masters(COURSE.assignments[0].id).glob("docstrings.*.yml"))
    changed = yaml.safe_load(docstrings_with(path.read_text(encoding="utf-8"), "new_function", '    """One line.\n\n    Parameters\n    """'))
    assert changed["functions"]["new_function"].startswith(texts.UNTRANSLATED)
    assert set(changed["functions"]) == set(yaml.safe_load(path.read_text(encoding="utf-8"))["functions"]) | {"new_function"}


def test_a_question_the_course_has_or_a_bad_name_is_refused():
    first = COURSE.assignments[0]
    with pytest.raises(ScaffoldError, match="already"):
        question_edits(COURSE, TEXT, first.id, first.functions[0], ("x",))
    for function, parameters in (("not-a-name", ("x",)), ("fine", ("class",)), ("fine", ("x", "x"))):
        with pytest.raises(ScaffoldError):
            question_edits(COURSE, TEXT, first.id, function, parameters)


def test_every_new_or_changed_python_file_parses_and_english_only_courses_get_no_translation():
    first = COURSE.assignments[0]
    edits = question_edits(COURSE, TEXT, first.id, "new_function", ("n", "window"))
    for edit in edits:
        if edit.path.suffix == ".py":
            ast.parse(edit.text)
    assert {e.path.name for e in edits if e.new} == {"new_function.py", "test_new_function.py"}
    english = COURSE.model_copy(update={"languages": ("en",), "feedback_language": "en"})
    assert not [e for e in question_edits(english, TEXT, first.id, "new_function", ("x",)) if e.path.suffix == ".yml"
                and e.path != LAYOUT.course_file]


def test_the_mistakes_placeholder_is_a_new_module_that_loads_with_no_mistake_yet(tmp_path):
    from autograder.diagnose.registry import ENGINE_BUGS, bugs
    from autograder.mutants import all_mutants

    first = COURSE.assignments[0]
    edits = question_edits(COURSE, TEXT, first.id, "new_function", ("n", "window"))
    [placeholder] = [e for e in edits if e.path.parent == COURSE.layout.mistakes]
    assert placeholder.new and placeholder.path.name == "new_function.py" and "TODO" in placeholder.text
    folder = tmp_path / "mistakes"
    folder.mkdir()
    (folder / placeholder.path.name).write_text(placeholder.text, encoding="utf-8")
    assert all_mutants(folder) == () and bugs(folder) == ENGINE_BUGS
