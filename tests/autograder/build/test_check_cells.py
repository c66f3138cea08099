"""The release notebooks' check cells: one after each graded function, one import before; none of it is graded."""

from __future__ import annotations

import ast
import json

import pytest

from autograder.build.check_cells import CHECK_TAG
from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.grade.api import grade_submission
from autograder.languages import localized_file_name

COURSE = load_course()


def _cells(assignment, language):
    name = localized_file_name(assignment.notebook, language, COURSE.languages[0])
    return json.loads((COURSE.layout.release(assignment.id) / name).read_text(encoding="utf-8"))["cells"]


@pytest.mark.parametrize("language", COURSE.languages)
@pytest.mark.parametrize("assignment", COURSE.assignments, ids=lambda a: a.id)
def test_every_graded_cell_is_followed_by_its_check_and_the_import_comes_first(assignment, language):
    cells = _cells(assignment, language)
    graded = [i for i, c in enumerate(cells) if c["metadata"].get("tags", [None])[0] == "graded"]
    assert [cells[i]["metadata"]["tags"][1] for i in graded] == list(assignment.functions)
    for i in graded:
        assert "".join(cells[i + 1]["source"]) == f"check({cells[i]['metadata']['tags'][1]!r})"
    (imports,) = [i for i, c in enumerate(cells) if c["id"] == "check-import"]
    (switch,) = [i for i, c in enumerate(cells) if c["id"] == "check-switch"]
    assert imports == graded[0] - 2 and switch == graded[0] - 1  # the import, the switch, then the first graded cell
    assert CHECK_TAG in cells[imports]["metadata"]["tags"] and CHECK_TAG in cells[switch]["metadata"]["tags"]
    assert "".join(cells[switch]["source"]).endswith("\nUSE_MODULE = False") and assignment.module in cells[switch]["source"][0]


def _filled(assignment, tmp_path):
    """The released notebook with each graded cell holding the solution's function (the check cells kept)."""
    solution = keep_solutions(COURSE.layout.master(assignment).read_text(encoding="utf-8"))
    tree = ast.parse(solution)
    sources = {n.name: ast.get_source_segment(solution, n) for n in tree.body if isinstance(n, ast.FunctionDef)}
    path = COURSE.layout.release(assignment.id) / assignment.notebook
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        tags = cell["metadata"].get("tags", [])
        if tags[:1] == ["graded"]:
            cell["source"] = sources[tags[1]]
    filled = tmp_path / assignment.notebook
    filled.write_text(json.dumps(notebook), encoding="utf-8")
    return filled


def test_a_notebook_filled_in_with_its_checks_gets_full_marks_without_a_policy_penalty(tmp_path):
    first = COURSE.assignments[0]
    result = grade_submission(COURSE, first.id, _filled(first, tmp_path), seed=1)
    assert result.score == result.max_score and result.import_violations == () and not result.penalties


@pytest.mark.parametrize("assignment", COURSE.assignments, ids=lambda a: a.id)
def test_the_code_a_grader_reads_from_the_notebook_is_the_same_without_the_checks(assignment):
    from autograder.build.release import load_context, stub_module
    from autograder.build.notebook import render_notebook
    from autograder.submission.notebook_code import notebook_to_module

    context = load_context(COURSE, assignment.id)
    plain = render_notebook(context.notebook_source, stub_module(context), questions=assignment.questions)
    released = (COURSE.layout.release(assignment.id) / assignment.notebook).read_text(encoding="utf-8")
    assert notebook_to_module(released, assignment.functions) == notebook_to_module(plain, assignment.functions)
