"""Solution regions in instructor masters, and the stubs that replace them.

A region is delimited by lines holding exactly (after indentation) the markers below,
the same ones nbgrader uses, so exports can keep them.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

SOLUTION_BEGIN = "### BEGIN SOLUTION"
SOLUTION_END = "### END SOLUTION"


class MarkerError(ValueError):
    """Markers are unbalanced, nested, or outside a function."""


@dataclass(frozen=True)
class SolutionRegion:
    """Lines ``begin``..``end`` (0-based, inclusive, the marker lines) inside ``function``."""

    begin: int
    end: int
    indent: str
    function: str


def _enclosing_functions(source: str) -> list[tuple[int, int, int, str]]:
    """(first line, last statement line, last line before the next statement, name) of every top-level function, 0-based."""
    body = ast.parse(source).body
    total = len(source.splitlines())
    starts = [node.lineno - 1 for node in body[1:]] + [total]
    return [
        (node.lineno - 1, node.end_lineno - 1, next_start - 1, node.name)
        for node, next_start in zip(body, starts)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]


def solution_regions(source: str, origin: str = "<master>") -> list[SolutionRegion]:
    """Find every solution region and the top-level function holding it.

    Raises
    ------
    MarkerError
        When markers are unbalanced or a region is not inside a top-level function.
    """
    lines = source.splitlines()
    functions = _enclosing_functions(source)
    regions, begin = [], None
    for number, line in enumerate(lines):
        marker = line.strip()
        if marker == SOLUTION_BEGIN:
            if begin is not None:
                raise MarkerError(f"{origin}:{number + 1}: {SOLUTION_BEGIN} inside another region")
            begin = number
        elif marker == SOLUTION_END:
            if begin is None:
                raise MarkerError(f"{origin}:{number + 1}: {SOLUTION_END} without {SOLUTION_BEGIN}")
            owner = [name for first, last, reach, name in functions if first < begin <= last and number <= reach]
            if not owner:
                raise MarkerError(f"{origin}:{begin + 1}: solution region outside a top-level function")
            indent = lines[begin][: len(lines[begin]) - len(lines[begin].lstrip())]
            regions.append(SolutionRegion(begin, number, indent, owner[0]))
            begin = None
    if begin is not None:
        raise MarkerError(f"{origin}:{begin + 1}: {SOLUTION_BEGIN} is never closed")
    return regions


def solution_code_lines(source: str) -> list[str]:
    """The stripped, non-blank, non-comment lines inside solution regions (for leak checks)."""
    lines = source.splitlines()
    inside = [
        lines[i].strip()
        for region in solution_regions(source)
        for i in range(region.begin + 1, region.end)
    ]
    return [line for line in inside if line and not line.startswith("#")]


def strip_solutions(source: str, stub_body, origin: str = "<master>") -> str:
    """Replace each solution region (markers included) with ``stub_body(function)`` at its indentation.

    Parameters
    ----------
    source : str
        The master module text.
    stub_body : callable
        ``stub_body(function_name) -> str``, one line of code without indentation.
    """
    lines = source.splitlines()
    for region in reversed(solution_regions(source, origin)):
        lines[region.begin : region.end + 1] = [region.indent + stub_body(region.function)]
    return "\n".join(lines) + "\n"


def keep_solutions(source: str, origin: str = "<master>") -> str:
    """The master with the marker lines removed and the answers kept (the instructor version)."""
    regions = solution_regions(source, origin)
    marker_lines = {r.begin for r in regions} | {r.end for r in regions}
    lines = [line for number, line in enumerate(source.splitlines()) if number not in marker_lines]
    return "\n".join(lines) + "\n"


def function_source(module_source: str, name: str) -> str:
    """The full text of top-level function ``name`` (decorators included).

    Raises
    ------
    MarkerError
        When the module defines no such function.
    """
    lines = module_source.splitlines()
    for node in ast.parse(module_source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
            return "\n".join(lines[first : node.end_lineno])
    raise MarkerError(f"the master module defines no function {name!r}")
