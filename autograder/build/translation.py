"""Parallel text in a notebook source: each English markdown cell followed by its translations.

In ``solutions/<id>/notebook.py`` (Jupytext percent format) every English markdown cell is
immediately followed by one markdown cell per translated language, marked with the
language in its metadata::

    # %% [markdown]
    # ## 4. Masks: attending only where allowed · 掩码
    #
    # Sometimes a query must not see some keys ...

    # %% [markdown] lang="zh"
    # ## 4. 掩码：只在允许的位置上做注意力 · Masks
    #
    # 有时某个查询不应看到某些键 ...

Code cells carry no language: both notebooks get the same ones. Building the notebook of a
language keeps the code cells and, for every English cell, the cell of that language.
"""

from __future__ import annotations

from dataclasses import dataclass

from autograder.languages import KNOWN_LANGUAGES, SOURCE_LANGUAGE

#: Metadata key of a translated markdown cell: ``# %% [markdown] lang="zh"``.
LANGUAGE_KEY = "lang"


@dataclass(frozen=True)
class ProsePair:
    """An English markdown cell and its translation.

    Attributes
    ----------
    position : int
        1-based position of the English cell among the source's cells, for messages.
    english, translation : str
        The two cells' markdown.
    """

    position: int
    english: str
    translation: str


def _language(cell) -> str | None:
    return cell.metadata.get(LANGUAGE_KEY)


def _where(origin: str, index: int, cell) -> str:
    first_line = cell.source.strip().split("\n", 1)[0][:60]
    return f"{origin}: cell {index + 1} ({first_line!r})"


def _cell_problems(cells, index: int, origin: str, required: tuple[str, ...]) -> list[str]:
    """Problems of one cell: a language where none belongs, or a missing translation."""
    cell, language = cells[index], _language(cells[index])
    if language is not None:
        if cell.cell_type != "markdown":
            return [f"{_where(origin, index, cell)}: only markdown cells are translated; a {cell.cell_type} cell has no {LANGUAGE_KEY}"]
        if language not in KNOWN_LANGUAGES or language == SOURCE_LANGUAGE:
            return [f"{_where(origin, index, cell)}: unknown translation language {language!r}"]
        return []
    if cell.cell_type != "markdown":
        return []
    following = _translations_after(cells, index)
    return [f"{_where(origin, index, cell)}: no {code} translation follows this English cell" for code in required if code not in following]


def _translations_after(cells, index: int) -> dict[str, object]:
    """The translated cells right after the English cell at ``index``, by language."""
    found: dict[str, object] = {}
    for cell in cells[index + 1 :]:
        language = _language(cell)
        if cell.cell_type != "markdown" or language is None:
            break
        found.setdefault(language, cell)
    return found


def _orphan_problems(cells, origin: str) -> list[str]:
    """Translated cells that follow no English cell, or repeat a language after one."""
    problems, seen, anchored = [], set(), False
    for index, cell in enumerate(cells):
        language = _language(cell)
        if language is None:
            anchored, seen = cell.cell_type == "markdown", set()
            continue
        if not anchored:
            problems.append(f"{_where(origin, index, cell)}: a {language} cell must follow the English markdown cell it translates")
        elif language in seen:
            problems.append(f"{_where(origin, index, cell)}: a second {language} translation of the same English cell")
        seen.add(language)
    return problems


def pairing_problems(notebook, required: tuple[str, ...], origin: str = "<notebook>") -> list[str]:
    """Every way the source's parallel text is incomplete or misplaced.

    Parameters
    ----------
    notebook : nbformat.NotebookNode
        The source as Jupytext reads it.
    required : tuple of str
        Languages every English markdown cell must be translated into.
    origin : str
        The source's path, for messages.
    """
    problems = [p for index in range(len(notebook.cells)) for p in _cell_problems(notebook.cells, index, origin, required)]
    return problems + _orphan_problems(notebook.cells, origin)


def prose_pairs(notebook, language: str) -> list[ProsePair]:
    """Every English markdown cell with its ``language`` translation (cells without one are left out)."""
    pairs = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "markdown" and _language(cell) is None:
            partner = _translations_after(notebook.cells, index).get(language)
            if partner is not None:
                pairs.append(ProsePair(index + 1, cell.source, partner.source))
    return pairs


def select_language(notebook, language: str) -> None:
    """Keep, in place, the code cells and the markdown of ``language``; the English cell stands
    in for a missing translation (the build refuses a source with one missing).
    """
    kept = []
    for index, cell in enumerate(notebook.cells):
        if _language(cell) is not None:
            continue
        if cell.cell_type == "markdown" and language != SOURCE_LANGUAGE:
            cell = _translations_after(notebook.cells, index).get(language, cell)
        kept.append(cell)
    for cell in kept:
        cell.metadata.pop(LANGUAGE_KEY, None)
    notebook.cells = kept
