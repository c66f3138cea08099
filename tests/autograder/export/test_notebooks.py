"""The notebooks in nbgrader's format: solution cells, a locked grade cell per question, hidden tests only in the source."""

import json
import re

import pytest

from autograder.build.markers import SOLUTION_BEGIN, SOLUTION_END
from autograder.config import load_course
from autograder.export.notebooks import HIDDEN_BEGIN, close_solution_region, graded_notebook
from autograder.export.spec import GradingSpec
from autograder.paths import SOLUTIONS_DIR

COURSE = load_course()
IDS = [a.id for a in COURSE.assignments]


def _cells(assignment_id: str, hidden: bool) -> list[dict]:
    assignment = COURSE.assignment(assignment_id)
    master = (SOLUTIONS_DIR / assignment_id / assignment.module).read_text(encoding="utf-8")
    return json.loads(graded_notebook(assignment, master, GradingSpec.of(COURSE, assignment_id), hidden=hidden))["cells"]


@pytest.mark.parametrize("assignment_id", IDS)
def test_every_question_has_a_solution_cell_and_a_locked_grade_cell_with_its_points(assignment_id):
    cells = _cells(assignment_id, hidden=True)
    meta = [c["metadata"]["nbgrader"] for c in cells if "nbgrader" in c["metadata"]]
    questions = COURSE.assignment(assignment_id).questions
    assert [m["grade_id"] for m in meta if m["solution"] and not m["grade"]] == [q.function for q in questions]
    grades = [m for m in meta if m["grade"] and not m["solution"]]
    assert [(m["grade_id"], m["points"], m["locked"]) for m in grades] == [(f"grade_{q.function}", q.points, True) for q in questions]
    assert all(m["schema_version"] == 3 and set(m) <= {"grade", "solution", "locked", "grade_id", "points", "schema_version"} for m in meta)
    for cell in cells:
        source = "".join(cell["source"])
        assert source.count(SOLUTION_BEGIN) == source.count(SOLUTION_END)  # nbgrader needs both in one cell


@pytest.mark.parametrize("assignment_id", IDS)
def test_grade_cells_come_last_and_hold_hidden_tests_only_in_the_source(assignment_id):
    source_cells, student_cells = _cells(assignment_id, hidden=True), _cells(assignment_id, hidden=False)
    count = len(COURSE.assignment(assignment_id).questions)
    assert all(c["metadata"].get("nbgrader", {}).get("grade") for c in source_cells[-count:])
    assert all(HIDDEN_BEGIN in "".join(c["source"]) for c in source_cells[-count:])
    assert not any(HIDDEN_BEGIN in "".join(c["source"]) for c in student_cells)
    assert str(GradingSpec.of(COURSE, assignment_id).seed) not in json.dumps(student_cells)


def test_a_region_that_closes_the_function_gets_its_end_marker_back():
    cell = f"def f():\n    {SOLUTION_BEGIN}\n    return 1"
    assert close_solution_region(cell) == cell + f"\n    {SOLUTION_END}"
    closed = cell + f"\n    {SOLUTION_END}"
    assert close_solution_region(closed) == closed


@pytest.mark.parametrize("assignment_id", IDS)
def test_the_chinese_notebook_has_the_same_code_and_grade_cells_and_chinese_prose(assignment_id):
    from autograder.i18n import render
    from autograder.export.notebooks import GRADING_HEADING

    assignment = COURSE.assignment(assignment_id)
    master = (SOLUTIONS_DIR / assignment_id / assignment.module).read_text(encoding="utf-8")
    spec = GradingSpec.of(COURSE, assignment_id, language="zh")
    name = assignment.notebook.replace(".ipynb", ".zh.ipynb")
    chinese = json.loads(graded_notebook(assignment, master, spec, hidden=True, language="zh", name=name))["cells"]
    english = _cells(assignment_id, hidden=True)
    code = [c for c in english if c["cell_type"] == "code"]
    chinese_code = [c for c in chinese if c["cell_type"] == "code"]
    assert [c["metadata"] for c in chinese_code] == [c["metadata"] for c in code]
    count = len(assignment.questions)  # the grade cells: the same but for their comment and their data's messages
    assert [_without_docstrings(c) for c in chinese_code[:-count]] == [_without_docstrings(c) for c in code[:-count]]
    assert [_without_data(c) for c in chinese_code[-count:]] == [_without_data(c) for c in code[-count:]]
    assert "".join(chinese[-len(assignment.questions) - 1]["source"]) == render(GRADING_HEADING, "zh")
    zh, en = _data(chinese[-1])["messages"], _data(english[-1])["messages"]  # the kernel's failure messages in Chinese
    assert zh.keys() == en.keys() and all(zh[k] != en[k] for k in ("values", "missing", "raised"))


def _data(cell: dict) -> dict:
    """The packed data a grade cell carries (its last string literal long enough to be data)."""
    from autograder.export.kernel_check import unpack

    return unpack(re.findall(r"'([A-Za-z0-9+/=]{200,})'", "".join(cell["source"]))[-1])


def _without_data(cell: dict) -> str:
    """A grade cell's code after its comment, its packed data left out."""
    return re.sub(r"'[A-Za-z0-9+/=]{200,}'", "DATA", "".join(cell["source"]).split("\n", 1)[1])


@pytest.mark.parametrize("assignment_id", [a.id for a in COURSE.assignments if a.written])
def test_each_written_answer_cell_is_manually_graded_with_its_points(assignment_id):
    cells = _cells(assignment_id, hidden=True)
    manual = [c for c in cells if c["metadata"].get("nbgrader", {}).get("solution") and c["metadata"]["nbgrader"]["grade"]]
    assert [(c["cell_type"], c["metadata"]["nbgrader"]["points"], c["metadata"]["tags"][1]) for c in manual] == \
        [("markdown", q.points, q.id) for q in COURSE.assignment(assignment_id).written]
    assert not any(c["metadata"]["nbgrader"]["locked"] for c in manual)


def test_nbgrader_gives_each_language_its_own_assignment():
    from autograder.export.nbgrader import nbgrader_assignment

    assert nbgrader_assignment("hw1_scaled_attention", "en", "en") == "hw1_scaled_attention"
    assert nbgrader_assignment("hw1_scaled_attention", "zh", "en") == "hw1_scaled_attention_zh"


def _without_docstrings(cell: dict) -> str:
    """A code cell's code, its docstrings left out (they are translated; the code is the same in every language)."""
    import ast

    tree = ast.parse("".join(cell["source"]))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Module)) and node.body and isinstance(node.body[0], ast.Expr) \
                and isinstance(node.body[0].value, ast.Constant) and isinstance(node.body[0].value.value, str):
            node.body[0].value.value = ""
    return ast.dump(tree)


#: How a grade cell's comment names a question's points in each language: (exactly one, any other number).
POINT_WORDS = {"en": ("({} point)", "({} points)"), "zh": ("（{} 分）", "（{} 分）")}


@pytest.mark.parametrize("language", COURSE.languages)
@pytest.mark.parametrize("assignment_id", IDS)
def test_grade_cells_name_their_points_in_the_notebooks_language_one_point_singular(assignment_id, language):
    assignment = COURSE.assignment(assignment_id)
    master = (SOLUTIONS_DIR / assignment_id / assignment.module).read_text(encoding="utf-8")
    document = json.loads(graded_notebook(assignment, master, GradingSpec.of(COURSE, assignment_id), hidden=False,
                                          language=language))
    comments = ["".join(c["source"]) for c in document["cells"] if c["cell_type"] == "code"
                and c["metadata"].get("nbgrader", {}).get("grade")]  # the grade cells (written answers are markdown)
    assert len(comments) == len(assignment.questions)
    for number, (comment, question) in enumerate(zip(comments, assignment.questions), start=1):
        one, many = POINT_WORDS[language]
        words = (one if question.points == 1 else many).format(f"{question.points:g}")
        assert comment.startswith("# ") and words in comment and f"`{question.function}`" in comment, comment
        assert str(number) in comment and "points)" not in comment.replace(many.format(f"{question.points:g}"), "")


@pytest.mark.parametrize("language", COURSE.languages)
def test_the_exported_notebooks_show_the_due_date_of_course_yml(language):
    assignment = COURSE.assignments[0]
    master = (SOLUTIONS_DIR / assignment.id / assignment.module).read_text(encoding="utf-8")
    document = json.loads(graded_notebook(assignment, master, GradingSpec.of(COURSE, assignment.id), hidden=True,
                                          language=language))
    assert any(assignment.due.isoformat() in "".join(c["source"]) for c in document["cells"] if c["cell_type"] == "markdown")
