"""The notebooks run in a real Jupyter kernel, in every language of the course: the solutions
clean, the stubs failing only on unfinished work."""

import os

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.build.docstrings import load_docstrings
from autograder.build.markers import keep_solutions
from autograder.build.notebook import render_notebook
from autograder.config import load_course
from autograder.languages import SOURCE_LANGUAGE, localized_file_name
from autograder.paths import ASSIGNMENTS_DIR, NOTEBOOK_SOURCE, SOLUTIONS_DIR

COURSE = load_course()
IDS = [a.id for a in COURSE.assignments]
#: Every assignment in every language the course ships.
NOTEBOOKS = [(assignment_id, language) for assignment_id in IDS for language in COURSE.languages]
#: Seconds one cell may take before the run counts as hung.
CELL_TIMEOUT_S = 120

pytestmark = pytest.mark.slow


def _execute(notebook_text: str, cwd, allow_errors: bool):
    notebook = nbformat.reads(notebook_text, as_version=4)
    os.environ.setdefault("MPLBACKEND", "Agg")
    client = NotebookClient(
        notebook, timeout=CELL_TIMEOUT_S, kernel_name="python3", allow_errors=allow_errors,
        resources={"metadata": {"path": str(cwd)}},
    )
    client.execute()
    return notebook


def _errors(notebook) -> list[tuple[str, str]]:
    return [
        (output.get("ename", ""), output.get("evalue", ""))
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]


@pytest.mark.parametrize("assignment_id, language", NOTEBOOKS)
def test_solution_notebook_runs_clean(assignment_id, language, tmp_path):
    assignment = COURSE.assignment(assignment_id)
    folder = SOLUTIONS_DIR / assignment_id
    solution = keep_solutions((folder / assignment.module).read_text(encoding="utf-8"))
    docstrings = None if language == SOURCE_LANGUAGE else load_docstrings(folder, language).functions
    text = render_notebook(
        (folder / NOTEBOOK_SOURCE).read_text(encoding="utf-8"), solution, questions=assignment.questions,
        language=language, docstrings=docstrings,
    )
    executed = _execute(text, tmp_path, allow_errors=False)
    assert _errors(executed) == []
    assert sum(1 for cell in executed.cells if cell.cell_type == "code" and cell.outputs) >= len(assignment.questions)


@pytest.mark.parametrize("assignment_id, language", NOTEBOOKS)
def test_stub_notebook_fails_only_with_not_implemented(assignment_id, language, tmp_path):
    assignment = COURSE.assignment(assignment_id)
    name = localized_file_name(assignment.notebook, language, COURSE.languages[0])
    text = (ASSIGNMENTS_DIR / assignment_id / name).read_text(encoding="utf-8")
    errors = _errors(_execute(text, tmp_path, allow_errors=True))
    assert errors, "the stub notebook should stop on the unfinished functions"
    assert {name for name, _ in errors} == {"NotImplementedError"}, errors
