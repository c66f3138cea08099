"""Translated docstrings: where they live, how a release uses them, and what they must keep.

The master module stays one English file. The translated prose of its docstrings lives
next to it, in ``solutions/<id>/docstrings.<lang>.yml`` (no code in it)::

    module: |
      中文说明
      --------
      ...
    functions:
      softmax: |
        数值稳定的 softmax，沿一个轴计算。
        ...

The release's module gets the ``module`` text appended to its docstring (one module, the
English docstrings plus a translated summary); the notebook of that language gets each
graded or given function with its docstring replaced by the translation. The code is not
touched: outside the docstring, a function's text is the same in every language.

A translated docstring keeps the numpydoc skeleton of the English one (see
:func:`docstring_skeleton`) and every inline literal, role and number of its prose.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from autograder.build.markers import MarkerError
from autograder.build.prose import NUMBER

#: ``docstrings.<lang>.yml`` in ``solutions/<id>/``.
DOCSTRINGS_SOURCE = "docstrings.{language}.yml"
TRIPLE_QUOTE = '"""'
#: numpydoc's section names: kept verbatim in every language (tools parse them).
NUMPYDOC_SECTIONS = frozenset({
    "Parameters", "Returns", "Yields", "Receives", "Raises", "Warns", "Other Parameters",
    "Attributes", "Methods", "See Also", "Notes", "References", "Examples",
})
#: Sections whose unindented lines are ``name : type`` specifications, kept verbatim.
SPEC_SECTIONS = frozenset({"Parameters", "Returns", "Yields", "Receives", "Raises", "Warns", "Other Parameters", "Attributes"})
#: Skeleton entries standing for a section of free title and its underline.
FREE_SECTION, UNDERLINE = "<section>", "<underline>"
_ROLE_OR_LITERAL = re.compile(r"``[^`]+``|:[a-z]+:`[^`]+`")


@dataclass(frozen=True)
class TranslatedDocstrings:
    """The translated docstrings of one module."""

    module: str = ""
    functions: dict[str, str] = field(default_factory=dict)


def parse_docstrings(text: str, origin: str) -> TranslatedDocstrings:
    """Read a ``docstrings.<lang>.yml`` text.

    Raises
    ------
    MarkerError
        When it is not a mapping of ``module`` (text) and ``functions`` (name -> text), or a
        text holds a triple quote.
    """
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as error:
        raise MarkerError(f"{origin}: not valid YAML: {error}") from None
    functions = data.get("functions", {}) if isinstance(data, dict) else None
    module = data.get("module", "") if isinstance(data, dict) else None
    if set(data) - {"module", "functions"} or not isinstance(module, str) or not isinstance(functions, dict):
        raise MarkerError(f"{origin}: expected `module: <text>` and `functions: {{<name>: <text>}}`")
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in functions.items()):
        raise MarkerError(f"{origin}: every entry of `functions` maps a function name to its docstring text")
    quoted = [name for name, doc in [("module", module), *functions.items()] if TRIPLE_QUOTE in doc]
    if quoted:
        raise MarkerError(f"{origin}: {TRIPLE_QUOTE} cannot appear in a docstring: {quoted}")
    return TranslatedDocstrings(module.strip("\n"), {k: v.strip("\n") for k, v in functions.items()})


def load_docstrings(folder: Path, language: str) -> TranslatedDocstrings:
    """The translated docstrings of ``solutions/<id>/`` in ``language`` (empty when there is no file)."""
    path = folder / DOCSTRINGS_SOURCE.format(language=language)
    if not path.is_file():
        return TranslatedDocstrings()
    return parse_docstrings(path.read_text(encoding="utf-8"), f"solutions/{folder.name}/{path.name}")


def _docstring_node(tree_body: list) -> ast.Constant | None:
    first = tree_body[0] if tree_body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first.value
    return None


def _prefix(line: str, column: int) -> str:
    """The string prefix (``r``, ``""``) of the literal starting at ``column``."""
    return line[column : line.index(TRIPLE_QUOTE, column)]


def replace_function_docstring(function_text: str, docstring: str) -> str:
    """``function_text`` (one top-level function) with its docstring replaced by ``docstring``.

    Raises
    ------
    MarkerError
        When the function has no docstring to replace.
    """
    lines = function_text.split("\n")
    function = next(n for n in ast.parse(function_text).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    node = _docstring_node(function.body)
    if node is None:
        raise MarkerError(f"function {function.name!r} has no docstring to translate")
    indent = " " * node.col_offset
    prefix = _prefix(lines[node.lineno - 1], node.col_offset)
    if "\\" in docstring and "r" not in prefix.lower():
        prefix = "r" + prefix
    body = docstring.split("\n")
    if len(body) == 1:
        new = [f"{indent}{prefix}{TRIPLE_QUOTE}{body[0]}{TRIPLE_QUOTE}"]
    else:
        new = [f"{indent}{prefix}{TRIPLE_QUOTE}{body[0]}"] + [f"{indent}{line}" if line else "" for line in body[1:]]
        new.append(f"{indent}{TRIPLE_QUOTE}")
    lines[node.lineno - 1 : node.end_lineno] = new
    return "\n".join(lines)


def append_module_docstring(module_source: str, translation: str, origin: str = "<module>") -> str:
    """The module with ``translation`` appended to its docstring, after a blank line.

    Raises
    ------
    MarkerError
        When the module docstring does not end with its closing quotes on a line of their own,
        or the translation needs a raw string the docstring is not.
    """
    lines = module_source.split("\n")
    node = _docstring_node(ast.parse(module_source).body)
    if node is None or lines[node.end_lineno - 1].strip() != TRIPLE_QUOTE:
        raise MarkerError(f"{origin}: the module docstring must end with {TRIPLE_QUOTE} on a line of its own")
    if "\\" in translation and "r" not in _prefix(lines[node.lineno - 1], node.col_offset).lower():
        raise MarkerError(f"{origin}: the translation holds a backslash; make the module docstring a raw string (r{TRIPLE_QUOTE})")
    lines[node.end_lineno - 1 : node.end_lineno - 1] = ["", *translation.split("\n")]
    return "\n".join(lines)


def section_title(title: str) -> str:
    """``title`` underlined as a docstring section, as wide as it shows (a CJK character takes two columns)."""
    width = sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in title)
    return f"{title}\n{'-' * width}"


def module_docstring(module_source: str) -> str:
    """The (cleaned) docstring of a module, or ``""``."""
    return ast.get_docstring(ast.parse(module_source)) or ""


def function_docstring(function_text: str) -> str:
    """The (cleaned) docstring of the first function in ``function_text``, or ``""``."""
    function = next(n for n in ast.parse(function_text).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return ast.get_docstring(function) or ""


def without_docstring(function_text: str) -> str:
    """The function's text with its docstring's lines removed: the code every language shares."""
    lines = function_text.split("\n")
    function = next(n for n in ast.parse(function_text).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    node = _docstring_node(function.body)
    if node is not None:
        del lines[node.lineno - 1 : node.end_lineno]
    return "\n".join(lines)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _math_block_end(lines: list[str], start: int) -> int:
    """Index after the ``.. math::`` block starting at ``start`` (its indented lines)."""
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > _indent(lines[start])):
        end += 1
    return end


def _is_header(lines: list[str], index: int) -> bool:
    following = lines[index + 1].strip() if index + 1 < len(lines) else ""
    return bool(lines[index].strip()) and len(following) >= 3 and set(following) == {"-"}


def docstring_skeleton(docstring: str) -> list[str]:
    """The lines of a (cleaned) docstring that every translation keeps verbatim.

    numpydoc section titles and underlines (a free section title counts as
    :data:`FREE_SECTION`), the ``name : type`` lines of Parameters, Returns, Raises and
    the like, ``.. math::`` blocks, and doctest examples with their output. Blank lines
    are left out.
    """
    lines, skeleton, section, index = docstring.split("\n"), [], None, 0
    while index < len(lines):
        line, stripped = lines[index], lines[index].strip()
        if _is_header(lines, index):
            section = stripped
            skeleton += [stripped if stripped in NUMPYDOC_SECTIONS else FREE_SECTION, UNDERLINE]
            index += 2
            continue
        if stripped.startswith(".. math::"):
            end = _math_block_end(lines, index)
            skeleton += [kept.rstrip() for kept in lines[index:end] if kept.strip()]
            index = end
            continue
        if stripped.startswith(">>>"):
            while index < len(lines) and lines[index].strip():
                skeleton.append(lines[index].rstrip())
                index += 1
            continue
        if section in SPEC_SECTIONS and stripped and _indent(line) == 0:
            skeleton.append(line.rstrip())
        index += 1
    return skeleton


def docstring_prose(docstring: str) -> str:
    """The docstring without its skeleton lines: what a translation rewrites."""
    kept = set(docstring_skeleton(docstring))
    return "\n".join(line for line in docstring.split("\n") if line.rstrip() not in kept)


def docstring_problems(english: str, translation: str) -> list[str]:
    """Every way a translated docstring departs from the English one."""
    ours, theirs = docstring_skeleton(english), docstring_skeleton(translation)
    problems = []
    if ours != theirs:
        first = next((n for n, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
        shown = [s[first] if first < len(s) else "(nothing)" for s in (ours, theirs)]
        problems.append(f"the numpydoc skeleton differs at line {first + 1}: {shown[0]!r} in English, {shown[1]!r} in the translation")
    english_prose, translated_prose = docstring_prose(english), docstring_prose(translation)
    missing = sorted(set(_ROLE_OR_LITERAL.findall(english_prose)) - set(_ROLE_OR_LITERAL.findall(translated_prose)))
    if missing:
        problems.append(f"literals missing from the translation: {missing}")
    numbers = [set(NUMBER.findall(_ROLE_OR_LITERAL.sub(" ", text))) for text in (english_prose, translated_prose)]
    if numbers[0] - numbers[1]:
        problems.append(f"numbers missing from the translation: {sorted(numbers[0] - numbers[1])}")
    return problems
