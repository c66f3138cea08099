"""Static policy check of a submission's source before it runs: syntax, imports, dynamic code.

This is a course policy (no torch, scipy or attn_reference), not the security boundary:
the sandbox is. Dynamic imports with a literal name (``__import__("x")``,
``importlib.import_module("x")``) are reported as imports of that module. What the import
check cannot read is disallowed in itself, with the same penalty: an import whose name is
computed, code run from strings (``exec``, ``eval``, ``compile``), and any use of
``__builtins__`` (where ``__import__`` can be fetched by a computed name).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from autograder.errors import LoadFailed
from autograder.i18n import N_, msg
from autograder.student_text import clean_text
from autograder.submission.locate import could_not_read

DYNAMIC_IMPORTERS = ("__import__", "import_module")
#: Why an import is disallowed.
OUTSIDE_ALLOWED = N_("imported outside the allowed list")
#: Names whose use hides code from the import check, and why each is disallowed.
DYNAMIC_CODE = {
    "exec": N_("runs code built from a string"),
    "eval": N_("runs code built from a string"),
    "compile": N_("compiles code built from a string"),
    "__builtins__": N_("reaches the builtins, where __import__ can be fetched by a computed name"),
}
COMPUTED_IMPORT = N_("imports a module whose name is computed")


@dataclass(frozen=True)
class ImportViolation:
    """A top-level module (or a construct) the course does not allow, the line using it, and why."""

    module: str
    line: int
    reason: str = OUTSIDE_ALLOWED


def parse_source(source: str, filename: str) -> ast.Module:
    """Parse the submission.

    Raises
    ------
    LoadFailed
        With the line, offset and message of a syntax error; or "could not be read" when
        the parser itself gives up (too deep, too big, not Unicode, NUL bytes).
    """
    try:
        return ast.parse(source, filename=filename)
    except SyntaxError as error:
        if error.lineno is None:  # not a place in the code (NUL bytes, say): the file itself is unreadable
            raise could_not_read(filename, error) from None
        where = msg("line {line}, column {column}", line=str(error.lineno), column=str(error.offset)) if error.offset \
            else msg("line {line}", line=str(error.lineno))
        text = f"\n    {clean_text(error.text).rstrip()}" if error.text else ""
        raise LoadFailed(msg("{file} does not parse: {error} ({where}){code}", file=filename, error=clean_text(error.msg),
                             where=where, code=text)) from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise could_not_read(filename, error) from None


def _imported_modules(nodes: tuple[ast.AST, ...]):
    """(top-level module name, line) for every import among ``nodes`` (a tree's, walked once)."""
    for node in nodes:
        if isinstance(node, ast.Import):
            yield from ((alias.name.split(".")[0], node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0], node.lineno
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name in DYNAMIC_IMPORTERS and isinstance(node.args[0].value, str):
                yield node.args[0].value.split(".")[0], node.lineno


def _called_name(node: ast.Call) -> str | None:
    return getattr(node.func, "id", None) or getattr(node.func, "attr", None)


def _dynamic_code(nodes: tuple[ast.AST, ...]):
    """``ImportViolation`` for each use of a name in :data:`DYNAMIC_CODE`, and each import of a computed name."""
    called = {id(node.func) for node in nodes if isinstance(node, ast.Call)}
    for node in nodes:
        if isinstance(node, ast.Name) and node.id in DYNAMIC_CODE:
            yield ImportViolation(node.id, node.lineno, DYNAMIC_CODE[node.id])
        elif isinstance(node, ast.Attribute) and node.attr == "__builtins__":
            yield ImportViolation(node.attr, node.lineno, DYNAMIC_CODE[node.attr])
        elif isinstance(node, ast.Call) and _called_name(node) in DYNAMIC_IMPORTERS:
            literal = node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
            if not literal:
                yield ImportViolation(_called_name(node), node.lineno, COMPUTED_IMPORT)
        elif isinstance(node, ast.Name) and node.id == "__import__" and id(node) not in called:
            yield ImportViolation(node.id, node.lineno, COMPUTED_IMPORT)  # taken as a value, called elsewhere


def policy_violations(tree: ast.Module, allowed: tuple[str, ...]) -> list[ImportViolation]:
    """Disallowed imports, then dynamic code, one per module or construct (its first line)."""
    first: dict[str, ImportViolation] = {}
    nodes = tuple(ast.walk(tree))  # one walk for every check: a long module has thousands of nodes
    for violation in [*_disallowed(nodes, allowed), *sorted(_dynamic_code(nodes), key=lambda v: v.line)]:
        first.setdefault(violation.module, violation)
    return sorted(first.values(), key=lambda v: v.line)


def disallowed_imports(tree: ast.Module, allowed: tuple[str, ...]) -> list[ImportViolation]:
    """Imports of modules outside ``allowed``, one per module (its first line)."""
    return _disallowed(tuple(ast.walk(tree)), allowed)


def _disallowed(nodes: tuple[ast.AST, ...], allowed: tuple[str, ...]) -> list[ImportViolation]:
    first_line: dict[str, int] = {}
    for module, line in _imported_modules(nodes):
        if module not in allowed and module not in first_line:
            first_line[module] = line
    return [ImportViolation(module, line) for module, line in sorted(first_line.items(), key=lambda item: item[1])]
