"""Extract the gradable code of a Jupyter notebook, without running it or needing Jupyter.

Only what grading needs is kept, in notebook order: imports, function and class
definitions, and assignments of simple constants. Demo cells, plots, experiments and
IPython magics are dropped, and a cell that does not parse is skipped, so an unfinished
exploration cell cannot break grading. Imports are kept only when the kept code uses
the names they bind.

This module uses the standard library only: it is also copied into each student release.
"""

from __future__ import annotations

import ast
import json

#: Lines starting with these are IPython syntax, not Python.
MAGIC_PREFIXES = ("%", "!", "?")

DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
IMPORTS = (ast.Import, ast.ImportFrom)


class NotebookError(ValueError):
    """The file is not a readable notebook."""


def code_cells(notebook_text: str) -> list[str]:
    """The source of every code cell of an ``.ipynb`` document, in order.

    Raises
    ------
    NotebookError
        When the text is not notebook JSON.
    """
    try:
        document = json.loads(notebook_text)
    except json.JSONDecodeError as error:
        raise NotebookError(f"the notebook is not valid JSON (line {error.lineno}: {error.msg})") from None
    cells = document.get("cells") if isinstance(document, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("the notebook has no list of cells")
    sources = []
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            sources.append("".join(source) if isinstance(source, list) else str(source))
    return sources


def _without_magics(source: str) -> str:
    return "\n".join("" if line.lstrip().startswith(MAGIC_PREFIXES) else line for line in source.splitlines())


def _is_simple_constant(node: ast.stmt) -> bool:
    """An assignment to plain names of a value that computes nothing (no calls)."""
    if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
        return False
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    if not all(isinstance(t, ast.Name) for t in targets):
        return False
    return not any(isinstance(n, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom)) for n in ast.walk(node.value))


def _bound_names(node: ast.Import | ast.ImportFrom) -> set[str]:
    return {(alias.asname or alias.name).split(".")[0] for alias in node.names}


def _used_names(nodes: list[ast.stmt]) -> set[str]:
    return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name)}


def gradable_source(cell_sources: list[str]) -> str:
    """Module source holding the gradable top-level statements of the cells, in order."""
    kept: list[ast.stmt] = []
    for source in cell_sources:
        try:
            tree = ast.parse(_without_magics(source))
        except SyntaxError:
            continue
        kept += [n for n in tree.body if isinstance(n, DEFINITIONS + IMPORTS) or _is_simple_constant(n)]
    used = _used_names([n for n in kept if not isinstance(n, IMPORTS)])
    body = [
        n for n in kept
        if not isinstance(n, IMPORTS) or isinstance(n, ast.ImportFrom) and n.module == "__future__" or _bound_names(n) & used
    ]
    future = [n for n in body if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
    rest = [n for n in body if n not in future]
    return "\n\n".join(ast.unparse(n) for n in future + rest) + "\n"


def notebook_to_module(notebook_text: str) -> str:
    """The gradable module source of a notebook document.

    Raises
    ------
    NotebookError
        When the text is not a notebook.
    """
    return gradable_source(code_cells(notebook_text))
