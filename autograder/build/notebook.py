"""Render a Jupytext percent-format notebook source into an ``.ipynb`` document.

Three kinds of placeholder are filled at build time, so the notebook cannot drift from
the module or from course.yml:

* a code cell whose metadata says ``graded="<function>"`` gets that function's source
  from the module (stub or solution) and the tags ``graded`` and the function's name;
* a code cell whose metadata says ``given="<function>"`` gets the source of a helper the
  module implements for the students, tagged ``given`` and the function's name;
* a markdown line holding exactly :data:`POINTS_TABLE_PLACEHOLDER` becomes the table of
  questions and points from course.yml, followed by the due date when the build gives it.

The source holds the prose of every language (see :mod:`autograder.build.translation`);
a notebook is rendered in one of them. In a translated notebook the filled functions carry
their translated docstrings (see :mod:`autograder.build.docstrings`); the code is the same.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Sequence

import jupytext
import nbformat

from autograder.build.docstrings import replace_function_docstring
from autograder.build.markers import MarkerError, function_source
from autograder.build.translation import select_language
from autograder.i18n import msg, render
from autograder.languages import SOURCE_LANGUAGE

GRADED_KEY = "graded"
GIVEN_KEY = "given"
#: Metadata keys of code cells filled with a function of the module, in the order tried.
FILLED_CELL_KEYS = (GRADED_KEY, GIVEN_KEY)
#: A markdown line holding exactly this (after stripping) becomes the points table.
POINTS_TABLE_PLACEHOLDER = "<!-- points table: generated from course.yml -->"
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}
#: The points table's column titles, by language.
POINTS_TABLE_HEADERS = {"en": ("Question", "Function", "Points"), "zh": ("题号", "函数", "分值")}


@lru_cache(maxsize=16)
def _parsed(notebook_source: str):
    return jupytext.reads(notebook_source, fmt="py:percent")


def read_source(notebook_source: str):
    """The notebook source as Jupytext reads it: a fresh copy each time, parsed once per text."""
    return copy.deepcopy(_parsed(notebook_source))


def points_table(questions: Sequence, language: str = SOURCE_LANGUAGE) -> str:
    """The markdown table of questions: number, function and points.

    Parameters
    ----------
    questions : sequence of autograder.config.Question
        In question order.
    language : str, default "en"
        The language of the column titles.
    """
    rows = ["| " + " | ".join(POINTS_TABLE_HEADERS[language]) + " |", "| --- | --- | --- |"]
    rows += [f"| {number} | `{q.function}` | {q.points:g} |" for number, q in enumerate(questions, start=1)]
    return "\n".join(rows)


def _fill_code_cell(cell, module_source: str, origin: str, docstrings: dict[str, str] | None) -> None:
    """Replace a graded or given placeholder's body with the function's source (and, given
    ``docstrings``, the function's docstring with its translation)."""
    for key in FILLED_CELL_KEYS:
        function = cell.metadata.pop(key, None)
        if function is None:
            continue
        try:
            cell.source = function_source(module_source, function)
            if docstrings is not None:
                if function not in docstrings:
                    raise MarkerError(f"no translated docstring for {function!r}")
                cell.source = replace_function_docstring(cell.source, docstrings[function])
        except MarkerError as error:
            raise MarkerError(f"{origin}: {key} cell: {error}") from None
        cell.metadata["tags"] = [key, function]
        return


def due_line(due: str, language: str = SOURCE_LANGUAGE) -> str:
    """The line under the points table that gives the due date (course.yml's ``due``), in ``language``."""
    return render(msg("**Due:** {due}", due=due), language)


def _fill_points_table(cell, questions: Sequence | None, origin: str, language: str, due: str | None) -> None:
    """Replace the placeholder line of a markdown cell with the points table (and, given ``due``, the due date)."""
    lines = cell.source.split("\n")
    if not any(line.strip() == POINTS_TABLE_PLACEHOLDER for line in lines):
        return
    if questions is None:
        raise MarkerError(f"{origin}: the points table needs the questions from course.yml")
    table = points_table(questions, language) + ("" if due is None else "\n\n" + due_line(due, language))
    cell.source = "\n".join(table if line.strip() == POINTS_TABLE_PLACEHOLDER else line for line in lines)


def render_notebook(
    notebook_source: str, module_source: str, origin: str = "<notebook>", questions: Sequence | None = None,
    language: str = SOURCE_LANGUAGE, docstrings: dict[str, str] | None = None, renames: dict[str, str] | None = None,
    due: str | None = None,
) -> str:
    """The ``.ipynb`` JSON text in one language: placeholders filled, no outputs.

    Parameters
    ----------
    notebook_source : str
        The notebook in Jupytext percent format.
    module_source : str
        The module whose functions fill the graded and given cells.
    origin : str
        Where the notebook source comes from, for error messages.
    questions : sequence of autograder.config.Question, optional
        The assignment's questions; needed when the source holds the points-table placeholder.
    language : str, default "en"
        The language of the markdown cells and the points table.
    docstrings : dict, optional
        Function name -> translated docstring, for every graded or given cell; None keeps
        the module's docstrings.
    renames : dict, optional
        Text -> replacement in the markdown cells: a file name the release localizes, such
        as the notebook's own (``scaled_attention.ipynb`` -> ``scaled_attention.zh.ipynb``).
    due : str, optional
        The assignment's due date as the release shows it; given, it follows the points table.

    Raises
    ------
    MarkerError
        When a graded or given cell names a function the module does not define or
        ``docstrings`` does not translate, or the points table is asked for without ``questions``.
    """
    notebook = read_source(notebook_source)
    select_language(notebook, language)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            _fill_code_cell(cell, module_source, origin, docstrings)
        elif cell.cell_type == "markdown":
            _fill_points_table(cell, questions, origin, language, due)
            for old, new in (renames or {}).items():
                cell.source = cell.source.replace(old, new)
    notebook.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    for index, cell in enumerate(notebook.cells):
        cell.id = f"cell-{index:03d}"
    return nbformat.writes(notebook, version=4) + "\n"


def graded_functions(notebook_source: str) -> list[str]:
    """Functions whose placeholder cells the notebook source holds, in order."""
    return filled_functions(notebook_source, (GRADED_KEY,))


def filled_functions(notebook_source: str, keys: tuple[str, ...] = FILLED_CELL_KEYS) -> list[str]:
    """Functions whose graded (and, by default, given) cells the notebook source holds, in order."""
    notebook = read_source(notebook_source)
    return [c.metadata[k] for c in notebook.cells if c.cell_type == "code" for k in keys if k in c.metadata]


def has_points_table(notebook_source: str) -> bool:
    """Whether a markdown cell of the source holds the points-table placeholder line."""
    notebook = read_source(notebook_source)
    return any(
        line.strip() == POINTS_TABLE_PLACEHOLDER
        for cell in notebook.cells
        if cell.cell_type == "markdown"
        for line in cell.source.split("\n")
    )
