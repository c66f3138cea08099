"""Static policy check of a submission's source before it runs: syntax and imports.

This is a course policy (no torch, scipy or attn_reference), not the security boundary:
the sandbox is. Dynamic imports with a literal name (``__import__("x")``,
``importlib.import_module("x")``) are reported too.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from autograder.errors import LoadFailed
from autograder.student_text import clean_text

DYNAMIC_IMPORTERS = ("__import__", "import_module")


@dataclass(frozen=True)
class ImportViolation:
    """A top-level module the course does not allow, and the line importing it."""

    module: str
    line: int


def parse_source(source: str, filename: str) -> ast.Module:
    """Parse the submission.

    Raises
    ------
    LoadFailed
        With the line, offset and message of a syntax error.
    """
    try:
        return ast.parse(source, filename=filename)
    except SyntaxError as error:
        where = f"line {error.lineno}" + (f", column {error.offset}" if error.offset else "")
        text = f"\n    {clean_text(error.text).rstrip()}" if error.text else ""
        raise LoadFailed(f"{filename} does not parse: {clean_text(error.msg)} ({where}){text}") from None
    except ValueError as error:
        raise LoadFailed(f"{filename} cannot be parsed: {error}") from None


def _imported_modules(tree: ast.Module):
    """(top-level module name, line) for every import in the tree."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((alias.name.split(".")[0], node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0], node.lineno
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name in DYNAMIC_IMPORTERS and isinstance(node.args[0].value, str):
                yield node.args[0].value.split(".")[0], node.lineno


def disallowed_imports(tree: ast.Module, allowed: tuple[str, ...]) -> list[ImportViolation]:
    """Imports of modules outside ``allowed``, one per module (its first line)."""
    first_line: dict[str, int] = {}
    for module, line in _imported_modules(tree):
        if module not in allowed and module not in first_line:
            first_line[module] = line
    return [ImportViolation(module, line) for module, line in sorted(first_line.items(), key=lambda item: item[1])]
