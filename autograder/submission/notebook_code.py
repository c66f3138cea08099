"""Extract the gradable code of a Jupyter notebook, without running it or needing Jupyter.

Only what grading needs is kept, in notebook order: imports, function and class
definitions, and assignments of simple constants. Demo cells, plots, experiments and
IPython magics are dropped, and a cell that does not parse is skipped, so an unfinished
exploration cell cannot break grading. Imports are kept only when the kept code uses
the names they bind (or bind a graded function). A cell magic's cell (``%%writefile``, ``%%time``, ``%%bash``...) is
dropped whole: what follows its ``%%`` line is not Python of the notebook.

Every step takes time linear in the notebook's size (no regular expression can backtrack
across lines, dependencies are followed through an index), so a hostile notebook costs
the grader no more than an honest one of its size.

This module uses the standard library only: it is also copied into each student release.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass

#: Lines starting with these are IPython syntax, not Python.
MAGIC_PREFIXES = ("%", "!", "?")
#: A line that asks IPython for help: ``obj?``, ``np.einsum??``.
HELP_REQUEST = re.compile(r"[A-Za-z_][\w.]*\?{1,2}")

DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
IMPORTS = (ast.Import, ast.ImportFrom)
#: The cell tag the build gives every graded cell (beside the function's name).
GRADED_TAG = "graded"
#: A line defining a function, for telling which function a cell that does not parse was meant to hold.
#: Only blanks may precede ``def`` (``\s`` would cross line ends: quadratic time on a cell of blank lines).
_DEF_LINE = re.compile(r"^[ \t\f]*(?:async[ \t\f]+)?def[ \t\f]+([A-Za-z_]\w*)", re.MULTILINE)
#: What starts a cell magic's line, and the most of its name a note shows.
CELL_MAGIC_PREFIX = "%%"
_MAGIC_NAME = re.compile(r"[\w.-]{0,40}")
#: Notes shown about cells left out, before one line saying how many more there are.
SHOWN_CELL_NOTES = 10


def N_(template: str) -> str:
    """Mark ``template`` as an entry of the grader's message catalog (autograder/i18n); returns it unchanged."""
    return template


class NotebookError(ValueError):
    """The file is not a readable notebook; ``template`` and ``facts`` let the grader say why in any language."""

    def __init__(self, template: str, **facts: str):
        super().__init__(template.format(**facts))
        self.template, self.facts = template, facts


@dataclass(frozen=True)
class CodeCell:
    """A code cell: its 1-based number among all the notebook's cells, its source and its tags."""

    number: int
    source: str
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class NotebookCode:
    """The gradable module source of a notebook, and what the student should know about it.

    Attributes
    ----------
    source : str
        The module source (see :func:`gradable_source`).
    notes : tuple of str
        One line per graded cell that does not parse, with its cell number and line (English).
    code_cell_count : int
        How many code cells the notebook has.
    said : tuple of (str, dict)
        The same notes as catalog templates and their facts, for the grader to say them in
        the student's language.
    """

    source: str
    notes: tuple[str, ...] = ()
    code_cell_count: int = 0
    said: tuple[tuple[str, dict], ...] = ()


def _cell_source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _cell_tags(cell: dict) -> tuple[str, ...]:
    metadata = cell.get("metadata")
    tags = metadata.get("tags") if isinstance(metadata, dict) else None
    return tuple(t for t in tags if isinstance(t, str)) if isinstance(tags, list) else ()


def notebook_cells(notebook_text: str) -> list[CodeCell]:
    """Every code cell of an ``.ipynb`` document, in order, numbered as the notebook shows them.

    Raises
    ------
    NotebookError
        When the text is not notebook JSON.
    """
    try:
        document = json.loads(notebook_text)
    except json.JSONDecodeError as error:
        raise NotebookError(N_("the notebook is not valid JSON (line {line}: {error})"), line=str(error.lineno),
                            error=error.msg) from None
    except RecursionError:
        raise NotebookError(N_("the notebook's JSON is nested too deeply to read")) from None
    cells = document.get("cells") if isinstance(document, dict) else None
    if not isinstance(cells, list):
        raise NotebookError(N_("the notebook has no list of cells"))
    return [
        CodeCell(number, _cell_source(cell), _cell_tags(cell))
        for number, cell in enumerate(cells, start=1)
        if isinstance(cell, dict) and cell.get("cell_type") == "code"
    ]


def code_cells(notebook_text: str) -> list[str]:
    """The source of every code cell of an ``.ipynb`` document, in order.

    Raises
    ------
    NotebookError
        When the text is not notebook JSON.
    """
    return [cell.source for cell in notebook_cells(notebook_text)]


def _is_ipython_syntax(line: str) -> bool:
    """Magics, shell escapes and help requests (``%timeit f()``, ``!pip install x``, ``np.einsum?``).

    A help request is a whole line naming one object (dotted names allowed) followed by
    ``?`` or ``??``; a comment or a docstring line that ends in a question mark is code.
    """
    stripped = line.strip()
    return stripped.startswith(MAGIC_PREFIXES) or HELP_REQUEST.fullmatch(stripped) is not None


def _without_magics(source: str) -> str:
    return "\n".join("" if _is_ipython_syntax(line) else line for line in source.splitlines())


def cell_magic(source: str) -> str | None:
    """The cell magic a cell holds (``%%writefile``, its name cut to 40 characters), or None.

    IPython hands a cell whose first line starts with ``%%`` to that magic (a file to write,
    a shell script, HTML, code to time in its own way) and refuses a ``%%`` line anywhere
    else, stopping the cell there: either way, the cell is not Python of the notebook.
    """
    for line in source.splitlines():
        stripped = line.lstrip()
        if stripped.startswith(CELL_MAGIC_PREFIX):
            return CELL_MAGIC_PREFIX + _MAGIC_NAME.match(stripped, len(CELL_MAGIC_PREFIX)).group()
    return None


@dataclass(frozen=True)
class _ReadCell:
    """A code cell as read: its syntax tree, or why it has none (its cell magic, or its syntax error)."""

    tree: ast.Module | None
    magic: str | None = None
    error: SyntaxError | None = None


def _read_cell(source: str) -> _ReadCell:
    magic = cell_magic(source)
    if magic is not None:
        return _ReadCell(None, magic=magic)
    try:
        return _ReadCell(ast.parse(_without_magics(source)))
    except SyntaxError as error:
        return _ReadCell(None, error=error)


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


def _is_future(node: ast.stmt) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


def _needed(definitions: list[ast.stmt], uses: dict[int, set[str]], functions) -> set[int]:
    """The ``id`` of every definition ``functions`` need, following the names they use (``uses``), transitively.

    Each definition is read once, through an index of the definitions binding each name: a
    chain of thousands of helpers costs time linear in its length.
    """
    defining: dict[str, list[ast.stmt]] = {}
    for node in definitions:
        for name in _defined_names(node):
            defining.setdefault(name, []).append(node)
    frontier = list(functions)
    wanted, needed = set(frontier), set()
    while frontier:
        for node in defining.get(frontier.pop(), ()):
            if id(node) not in needed:
                needed.add(id(node))
                new = uses[id(node)] - wanted
                wanted |= new
                frontier += new
    return needed


def _module_of(trees: list[ast.Module | None], functions) -> str:
    """The module source of the gradable top-level statements of the cells' trees (see :func:`gradable_source`)."""
    kept = [n for tree in trees if tree is not None for n in tree.body
            if isinstance(n, DEFINITIONS + IMPORTS) or _is_simple_constant(n)]
    uses = {id(n): _used_names([n]) for n in kept if not isinstance(n, IMPORTS)}  # each statement walked once
    if functions is not None:
        needed = _needed([n for n in kept if not isinstance(n, IMPORTS)], uses, functions)
        kept = [n for n in kept if isinstance(n, IMPORTS) or id(n) in needed]
    used = set().union(*(uses[id(n)] for n in kept if not isinstance(n, IMPORTS)))
    used |= set(functions or ())  # an import binding a graded name stands for that function: kept, so policy sees it
    future = [n for n in kept if _is_future(n)]
    rest = [n for n in kept if not _is_future(n) and (not isinstance(n, IMPORTS) or _bound_names(n) & used)]
    return "\n\n".join(ast.unparse(n) for n in future + rest) + "\n"


def gradable_source(cell_sources: list[str], functions=None) -> str:
    """Module source holding the gradable top-level statements of the cells, in order.

    Cell magics' cells and cells that do not parse are left out.

    Parameters
    ----------
    cell_sources : list of str
        The code cells.
    functions : iterable of str, optional
        The graded functions. When given, only they and the definitions they use
        (helpers, constants) are kept, so plotting helpers and their imports are left out.
    """
    return _module_of([_read_cell(source).tree for source in cell_sources], functions)


def notebook_to_module(notebook_text: str, functions=None) -> str:
    """The gradable module source of a notebook document (see :func:`gradable_source`).

    Raises
    ------
    NotebookError
        When the text is not a notebook.
    """
    return gradable_source(code_cells(notebook_text), functions)


def _graded_function_of(cell: CodeCell, functions) -> str | None:
    """The graded function a cell holds: named by its tags (the build's ``graded`` cells), else by a ``def``."""
    wanted = tuple(functions or ())
    if GRADED_TAG in cell.tags:
        tagged = [t for t in cell.tags if t in wanted]
        if tagged:
            return tagged[0]
    defined = [name for name in _DEF_LINE.findall(cell.source) if name in wanted]
    return defined[0] if defined else None


def syntax_note_said(cell: CodeCell, function: str, error: SyntaxError) -> tuple[str, dict]:
    """The template and facts of :func:`syntax_note` (this file is copied into releases: it imports no catalog)."""
    facts = {"cell": str(cell.number), "function": function, "error": str(error.msg)}
    if error.lineno:
        return N_("cell {cell} (the `{function}` cell) does not parse: line {line}: {error}"), {**facts, "line": str(error.lineno)}
    return N_("cell {cell} (the `{function}` cell) does not parse: {error}"), facts


def syntax_note(cell: CodeCell, function: str, error: SyntaxError) -> str:
    """``cell 5 (the `softmax` cell) does not parse: line 3: invalid syntax``: notebook cell and line in the cell."""
    template, facts = syntax_note_said(cell, function, error)
    return template.format(**facts)


def magic_note_said(cell: CodeCell, function: str, magic: str) -> tuple[str, dict]:
    """The template and facts of the note on a graded function written in a cell magic's cell."""
    return (N_("cell {cell} (the `{function}` cell) is a `{magic}` cell: its code is not Python of the notebook "
               "and is not graded; define `{function}` in a plain code cell"),
            {"cell": str(cell.number), "function": function, "magic": magic})


def _left_out_notes(cells: list[CodeCell], read: list[_ReadCell], functions) -> list[tuple[str, dict]]:
    """A note for each graded cell left out (a cell magic, a syntax error), the first :data:`SHOWN_CELL_NOTES` of them.

    Other cells left out (explorations, shell scripts) are left out silently.
    """
    notes = []
    for cell, cell_read in zip(cells, read):
        function = _graded_function_of(cell, functions) if cell_read.tree is None else None
        if function is not None and cell_read.magic is not None:
            notes.append(magic_note_said(cell, function, cell_read.magic))
        elif function is not None:
            notes.append(syntax_note_said(cell, function, cell_read.error))
    if len(notes) > SHOWN_CELL_NOTES:
        more = str(len(notes) - SHOWN_CELL_NOTES)
        notes[SHOWN_CELL_NOTES:] = [(N_("and {count} more graded cell(s) left out like these"), {"count": more})]
    return notes


def extract_cells(cells: list[CodeCell], functions=None) -> NotebookCode:
    """The gradable code of a notebook's code cells, with a note for each graded cell left out.

    Each cell is parsed once; a cell magic's cell is not parsed at all.
    """
    read = [_read_cell(cell.source) for cell in cells]
    said = _left_out_notes(cells, read, functions) if functions is not None else []
    notes = tuple(template.format(**facts) for template, facts in said)
    return NotebookCode(_module_of([r.tree for r in read], functions), notes, len(cells), tuple(said))


def extract_notebook(notebook_text: str, functions=None) -> NotebookCode:
    """The gradable code of a notebook, with a note for each graded cell left out (see :func:`extract_cells`).

    Raises
    ------
    NotebookError
        When the text is not a notebook.
    """
    return extract_cells(notebook_cells(notebook_text), functions)
