"""Render a Jupytext percent-format notebook source into an ``.ipynb`` document.

A code cell whose metadata says ``graded="<function>"`` is a placeholder: its body is
replaced with that function's source from the module (stub or solution), so the
notebook and the module cannot drift apart.
"""

from __future__ import annotations

import jupytext
import nbformat

from autograder.build.markers import MarkerError, function_source

GRADED_KEY = "graded"
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def render_notebook(notebook_source: str, module_source: str, origin: str = "<notebook>") -> str:
    """The ``.ipynb`` JSON text: graded cells filled from ``module_source``, no outputs.

    Raises
    ------
    MarkerError
        When a graded cell names a function the module does not define.
    """
    notebook = jupytext.reads(notebook_source, fmt="py:percent")
    for cell in notebook.cells:
        function = cell.metadata.pop(GRADED_KEY, None)
        if cell.cell_type == "code" and function is not None:
            try:
                cell.source = function_source(module_source, function)
            except MarkerError as error:
                raise MarkerError(f"{origin}: graded cell: {error}") from None
            cell.metadata["tags"] = ["graded", function]
    notebook.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    for index, cell in enumerate(notebook.cells):
        cell.id = f"cell-{index:03d}"
    return nbformat.writes(notebook, version=4) + "\n"


def graded_functions(notebook_source: str) -> list[str]:
    """Functions whose placeholder cells the notebook source holds, in order."""
    notebook = jupytext.reads(notebook_source, fmt="py:percent")
    return [c.metadata[GRADED_KEY] for c in notebook.cells if c.cell_type == "code" and GRADED_KEY in c.metadata]
