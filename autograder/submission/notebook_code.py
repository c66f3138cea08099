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
import re

#: Lines starting with these are IPython syntax, not Python.
MAGIC_PREFIXES = ("%", "!", "?")
#: A line that asks IPython for help: ``obj?``, ``np.einsum??``.
HELP_REQUEST = re.compile(r"[A-Za-z_][\w.]*\?{1,2}")

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


def _is_ipython_syntax(line: str) -> bool:
    """Magics, shell escapes and help requests (``%timeit f()``, ``!pip install x``, ``np.einsum?``).

    A help request is a whole line naming one object (dotted names allowed) followed by
    ``?`` or ``??``; a comment or a docstring line that ends in a question mark is code.
    """
    stripped = line.strip()
    return stripped.startswith(MAGIC_PREFIXES) or HELP_REQUEST.fullmatch(stripped) is not None


def _without_magics(source: str) -> str:
    return "\n".join("" if _is_ipython_syntax(line) else line for line in source.splitlines())


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


def _defined_names(node: ast.stmt) -> set[str]:
    if isinstance(node, DEFINITIONS):
        return {node.name}
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return {t.id for t in targets if isinstance(t, ast.Name)}


def _needed(definitions: list[ast.stmt], functions) -> list[ast.stmt]:
    """The definitions ``functions`` need, following the names they use, transitively."""
    wanted, frontier = set(functions), set(functions)
    while frontier:
        uses = _used_names([n for n in definitions if _defined_names(n) & frontier])
        frontier = uses - wanted
        wanted |= uses
    return [n for n in definitions if _defined_names(n) & wanted]


def gradable_source(cell_sources: list[str], functions=None) -> str:
    """Module source holding the gradable top-level statements of the cells, in order.

    Parameters
    ----------
    cell_sources : list of str
        The code cells.
    functions : iterable of str, optional
        The graded functions. When given, only they and the definitions they use
        (helpers, constants) are kept, so plotting helpers and their imports are left out.
    """
    kept: list[ast.stmt] = []
    for source in cell_sources:
        try:
            tree = ast.parse(_without_magics(source))
        except SyntaxError:
            continue
        kept += [n for n in tree.body if isinstance(n, DEFINITIONS + IMPORTS) or _is_simple_constant(n)]
    if functions is not None:
        definitions = _needed([n for n in kept if not isinstance(n, IMPORTS)], functions)
        kept = [n for n in kept if isinstance(n, IMPORTS) or n in definitions]
    used = _used_names([n for n in kept if not isinstance(n, IMPORTS)])
    body = [
        n for n in kept
        if not isinstance(n, IMPORTS) or isinstance(n, ast.ImportFrom) and n.module == "__future__" or _bound_names(n) & used
    ]
    future = [n for n in body if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
    rest = [n for n in body if n not in future]
    return "\n\n".join(ast.unparse(n) for n in future + rest) + "\n"


def notebook_to_module(notebook_text: str, functions=None) -> str:
    """The gradable module source of a notebook document (see :func:`gradable_source`).

    Raises
    ------
    NotebookError
        When the text is not a notebook.
    """
    return gradable_source(code_cells(notebook_text), functions)
