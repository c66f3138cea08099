"""The assignment notebook in the platforms' formats, built from the masters and course.yml.

:func:`graded_notebook` renders the notebook source with a module (the master with its
solution markers for nbgrader's source, the solution, a stub or a buggy version for
submissions) and adds what nbgrader reads: solution metadata on every graded cell and, at
the end, one locked grade cell per question worth its course.yml points. A grade cell's
hidden part carries the question's hidden tests as data and the checker that replays them
(:mod:`autograder.export.kernel_check`), and ends with the question's score; the
student's copy holds only the visible comment (nbgrader strips the hidden part from the
release, and restores it from its database when it grades). Grade cells come last: the
cells before them in the kernel's history are the student's, which the import policy reads.
The notebook also names its assignment for otter (``metadata.otter.assignment_name``).
"""

from __future__ import annotations

import nbformat

from autograder.build.markers import SOLUTION_BEGIN, SOLUTION_END
from autograder.written.cells import WRITTEN_TAG, with_written_cells
from autograder.build.notebook import GRADED_KEY, render_notebook
from autograder.config import Assignment
from autograder.build.docstrings import load_docstrings
from autograder.export.spec import GradingSpec
from autograder.i18n import msg, render
from autograder.languages import SOURCE_LANGUAGE
from autograder.layout import CourseDirectory
from autograder.paths import NOTEBOOK_SOURCE
from autograder.scoring import points_message

#: nbgrader's cell metadata schema.
NBGRADER_SCHEMA = 3
HIDDEN_BEGIN = "### BEGIN HIDDEN TESTS"
HIDDEN_END = "### END HIDDEN TESTS"
#: The grade cells' grade_id is this prefix and the question's function.
GRADE_ID_PREFIX = "grade_"
#: The name the hidden lines load the checker under, in the notebook's globals.
KERNEL_VARIABLE = "_attn_kernel"
GRADING_HEADING = msg(
    "## Grading\n\nThe cells below are filled in by the course's grader when your notebook is graded: "
    "leave them as they are. Each question scores its points times the weighted share of its hidden tests "
    "that pass."
)


def notebook_source(assignment: Assignment, layout: CourseDirectory | None = None) -> str:
    """The assignment's notebook source (Jupytext percent format) from the course's ``solutions/``."""
    return (layout or CourseDirectory.of()).notebook_source(assignment.id).read_text(encoding="utf-8")


def grade_cell_source(function: str, number: int, points: float, data: str | None,
                      language: str = SOURCE_LANGUAGE, seed: int | None = None) -> str:
    """A grade cell: the visible comment in ``language`` and, with ``data``, the hidden lines that score the question.

    The hidden lines load the checker (:mod:`autograder.export.kernel_check`) and score the question on
    ``data`` (:func:`autograder.export.kernel_code.question_data`): no ``attn-course``, hidden tests or
    reference needed in the kernel. The question's grade cell is the ``number``-th of the grading cells,
    which run last: the cells before them in the kernel's history are the student's.
    """
    comment = msg("Grades question {number}, `{function}` ({points}), with the course's hidden tests.",
                  number=number, function=function, points=points_message(points))
    lines = ["# " + render(comment, language)]
    if data is not None:
        from autograder.export.kernel_code import bootstrap

        lines += [HIDDEN_BEGIN, f"# seed = {seed}",
                  bootstrap(KERNEL_VARIABLE),
                  f"{KERNEL_VARIABLE}['question_score'](globals(), {data!r}, {number})", HIDDEN_END]
    return "\n".join(lines)


def close_solution_region(source: str) -> str:
    """A graded cell whose solution region runs to the function's end, with its END marker back.

    A function's source ends at its last statement, so a region closing the function loses its
    ``### END SOLUTION`` line; nbgrader needs it in the same cell.
    """
    lines = source.split("\n")
    opened = [line for line in lines if line.strip() == SOLUTION_BEGIN]
    if len(opened) == sum(line.strip() == SOLUTION_END for line in lines) + 1:
        indent = opened[-1][: len(opened[-1]) - len(opened[-1].lstrip())]
        lines.append(indent + SOLUTION_END)
    return "\n".join(lines)


def _solution_metadata(function: str) -> dict:
    return {"grade": False, "solution": True, "locked": False, "grade_id": function, "schema_version": NBGRADER_SCHEMA}


def _grade_metadata(function: str, points: float) -> dict:
    return {"grade": True, "solution": False, "locked": True, "grade_id": GRADE_ID_PREFIX + function,
            "points": points, "schema_version": NBGRADER_SCHEMA}


def manual_metadata(question_id: str, points: float) -> dict:
    """nbgrader's metadata of a written answer cell: a manually graded answer ("manual": grade and solution)."""
    return {"grade": True, "solution": True, "locked": False, "grade_id": f"written_{question_id}", "points": points,
            "schema_version": NBGRADER_SCHEMA}


def graded_notebook(assignment: Assignment, module_source: str, spec: GradingSpec, *, hidden: bool,
                    language: str = SOURCE_LANGUAGE, name: str | None = None,
                    layout: CourseDirectory | None = None, data: dict[str, str] | None = None) -> str:
    """The notebook in ``language`` as ``.ipynb`` JSON, with nbgrader's metadata and grade cells.

    Parameters
    ----------
    module_source : str
        The module whose functions fill the graded cells.
    spec : GradingSpec
        The assignment's grading.
    hidden : bool
        Write the grade cells' hidden tests (nbgrader's source) or only their visible part (a student's copy).
    language : str, default "en"
        The language of the prose and the docstrings (the code cells are the same in every language).
    name : str, optional
        The notebook's file name in that language, which its prose names (``scaled_attention.zh.ipynb``).
    layout : CourseDirectory, optional
        The course whose masters hold the notebook's source (default: this project's course).
    data : dict, optional
        Each question's packed hidden tests (:func:`autograder.export.kernel_code.question_data`), which the
        hidden part of its grade cell carries (default: recorded here, with ``spec``'s seed and language).
    """
    layout = layout or CourseDirectory.of()
    if hidden and data is None:
        from autograder.config import load_course
        from autograder.export.kernel_code import packed_questions

        data = packed_questions(load_course(layout.course_file), spec, layout.hidden_tests)
    docstrings = None if language == SOURCE_LANGUAGE else load_docstrings(layout.masters(assignment.id), language).functions
    renames = {assignment.notebook: name} if name and name != assignment.notebook else None
    rendered = render_notebook(notebook_source(assignment, layout), module_source, f"solutions/{assignment.id}/{NOTEBOOK_SOURCE}",
                               assignment.questions, language, docstrings, renames, due=assignment.due.isoformat())
    notebook = nbformat.reads(with_written_cells(rendered, assignment, language), as_version=4)
    written = {q.id: q.points for q in assignment.written}
    for cell in notebook.cells:
        tags = cell.metadata.get("tags", [])
        if cell.cell_type == "code" and GRADED_KEY in tags:
            cell.metadata["nbgrader"] = _solution_metadata(tags[1])
            cell.source = close_solution_region(cell.source)
        elif cell.cell_type == "markdown" and tags[:1] == [WRITTEN_TAG] and tags[1:2] and tags[1] in written:
            cell.metadata["nbgrader"] = manual_metadata(tags[1], written[tags[1]])
    cells = [nbformat.v4.new_markdown_cell(render(GRADING_HEADING, language))]
    for number, question in enumerate(assignment.questions, start=1):
        source = grade_cell_source(question.function, number, question.points,
                                   (data or {}).get(question.function) if hidden else None, language, spec.seed)
        cells.append(nbformat.v4.new_code_cell(source, metadata={"nbgrader": _grade_metadata(question.function, question.points)}))
    for index, cell in enumerate(cells, start=len(notebook.cells)):
        cell.id = f"cell-{index:03d}"
    notebook.cells += cells
    notebook.metadata["otter"] = {"assignment_name": assignment.id}
    return nbformat.writes(notebook, version=4) + "\n"
