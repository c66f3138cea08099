"""Static policy check of a submission's source before it runs: syntax, imports, dynamic code.

This is a course policy (no torch, scipy or attn_reference), not the security boundary:
the sandbox is. Dynamic imports with a literal name (``__import__("x")``,
``importlib.import_module("x")``) are reported as imports of that module, and so is an
attribute chain that reaches a module outside the allowed list through an allowed one
(``dataclasses.inspect.os``: see :mod:`autograder.grade.reach`). What the import check cannot
read is disallowed in itself, with the same penalty: an import whose name is computed, code run
from strings (``exec``, ``eval``, ``compile``), any use of ``__builtins__`` (where
``__import__`` can be fetched by a computed name), attributes reached by a computed name
(``getattr(x, name)``), namespaces read as dictionaries (``vars()``, ``__dict__``), the dunder
attributes that climb the object graph to classes, functions' globals and frames
(``().__class__.__base__.__subclasses__()``), and the import machinery (``__loader__``,
``__spec__``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from autograder.i18n import N_
from autograder.submission.parse import parse_source  # noqa: F401 - re-exported: callers import it from here

DYNAMIC_IMPORTERS = ("__import__", "import_module")
#: Why an import is disallowed.
OUTSIDE_ALLOWED = N_("imported outside the allowed list")
REACHES_BUILTINS = N_("reaches the builtins, where __import__ can be fetched by a computed name")
COMPUTED_ATTRIBUTE = N_("reaches an attribute whose name is computed")
NAMESPACE = N_("reads a namespace as a dictionary, where names can be computed")
OBJECT_GRAPH = N_("climbs the object graph, where modules and builtins are reached without an import")
IMPORT_MACHINERY = N_("reaches the import machinery, which loads modules without an import statement")
#: Names whose use hides code from the import check, and why each is disallowed.
DYNAMIC_CODE = {
    "exec": N_("runs code built from a string"),
    "eval": N_("runs code built from a string"),
    "compile": N_("compiles code built from a string"),
    "__builtins__": REACHES_BUILTINS,
    "vars": NAMESPACE, "globals": NAMESPACE, "locals": NAMESPACE,
    "__loader__": IMPORT_MACHINERY, "__spec__": IMPORT_MACHINERY,
}
#: Attributes (also as the literal name of a ``getattr``) whose use hides what the code reaches, and why.
DYNAMIC_ATTRIBUTES = {
    "__builtins__": REACHES_BUILTINS,
    "__dict__": NAMESPACE,
    "__getattribute__": COMPUTED_ATTRIBUTE, "__getattr__": COMPUTED_ATTRIBUTE,
    "__loader__": IMPORT_MACHINERY, "__spec__": IMPORT_MACHINERY,
    **dict.fromkeys((
        "__class__", "__bases__", "__base__", "__mro__", "__subclasses__",  # to every class, os._wrap_close too
        "__globals__", "__code__", "__closure__", "__defaults__", "__kwdefaults__", "__self__",  # a function's world
        "__traceback__", "tb_frame", "f_back", "f_globals", "f_locals", "f_builtins", "gi_frame", "cr_frame", "ag_frame",
    ), OBJECT_GRAPH),
}
#: Callables that reach an attribute by name -> where the name is among their positional arguments
#: (``getattr(x, name)``; ``x.__setattr__(name, value)`` or ``object.__setattr__(x, name, value)``).
#: A literal name is fine; a computed one, or the callable taken as a value, is disallowed.
ATTRIBUTE_BY_NAME = {"getattr": 1, "setattr": 1, "delattr": 1, "hasattr": 1, "__setattr__": -2, "__delattr__": -1}
COMPUTED_IMPORT = N_("imports a module whose name is computed")


@dataclass(frozen=True)
class ImportViolation:
    """A top-level module (or a construct) the course does not allow, the line using it, and why."""

    module: str
    line: int
    reason: str = OUTSIDE_ALLOWED


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


def _literal(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _named_attribute(node: ast.Call, position: int) -> str | None:
    """The literal attribute name at ``position`` among a call's arguments, else None (computed or absent)."""
    if node.keywords or any(isinstance(arg, ast.Starred) for arg in node.args) or not -len(node.args) <= position < len(node.args):
        return None
    return _literal(node.args[position])


def _dynamic_call(node: ast.Call):
    """``ImportViolation`` for a call that imports or reaches an attribute by a computed name."""
    name = _called_name(node)
    if name in DYNAMIC_IMPORTERS and _literal(node.args[0] if node.args else None) is None:
        yield ImportViolation(name, node.lineno, COMPUTED_IMPORT)
    elif name in ATTRIBUTE_BY_NAME:
        attribute = _named_attribute(node, ATTRIBUTE_BY_NAME[name])
        if attribute is None:
            yield ImportViolation(name, node.lineno, COMPUTED_ATTRIBUTE)
        elif name == "getattr" and attribute in DYNAMIC_ATTRIBUTES:
            yield ImportViolation(attribute, node.lineno, DYNAMIC_ATTRIBUTES[attribute])


def _dynamic_code(nodes: tuple[ast.AST, ...]):
    """``ImportViolation`` for each use of a name in :data:`DYNAMIC_CODE` or an attribute in :data:`DYNAMIC_ATTRIBUTES`,
    each import of a computed name and each attribute reached by a computed name."""
    called = {id(node.func) for node in nodes if type(node) is ast.Call}
    for node in nodes:
        kind = type(node)
        if kind is ast.Call:
            yield from _dynamic_call(node)
            continue
        name = node.id if kind is ast.Name else node.attr if kind is ast.Attribute else None
        if name is None:
            continue
        if kind is ast.Name and name in DYNAMIC_CODE:
            yield ImportViolation(name, node.lineno, DYNAMIC_CODE[name])
        elif kind is ast.Attribute and name in DYNAMIC_ATTRIBUTES:
            yield ImportViolation(name, node.lineno, DYNAMIC_ATTRIBUTES[name])
        elif id(node) not in called and (name == "__import__" or name in ATTRIBUTE_BY_NAME):  # a value, called elsewhere
            yield ImportViolation(name, node.lineno, COMPUTED_IMPORT if name == "__import__" else COMPUTED_ATTRIBUTE)


def policy_violations(tree: ast.Module, allowed: tuple[str, ...]) -> list[ImportViolation]:
    """Disallowed imports (and attribute chains reaching disallowed modules), then dynamic code, one per module or
    construct (its first line)."""
    first: dict[str, ImportViolation] = {}
    nodes = tuple(ast.walk(tree))  # one walk for every check: a long module has thousands of nodes
    for violation in [*_disallowed(nodes, allowed), *sorted(_dynamic_code(nodes), key=lambda v: v.line)]:
        first.setdefault(violation.module, violation)
    return sorted(first.values(), key=lambda v: v.line)


def disallowed_imports(tree: ast.Module, allowed: tuple[str, ...]) -> list[ImportViolation]:
    """Imports of modules outside ``allowed``, and attribute chains reaching them, one per module (its first line)."""
    return _disallowed(tuple(ast.walk(tree)), allowed)


def _disallowed(nodes: tuple[ast.AST, ...], allowed: tuple[str, ...]) -> list[ImportViolation]:
    from autograder.grade.reach import reached_modules  # here: the student kit holds this module for parse_source only

    imported = [(module, line, OUTSIDE_ALLOWED) for module, line in _imported_modules(nodes) if module not in allowed]
    reached = [(module, line, REACHES_BUILTINS if module == "builtins" else OUTSIDE_ALLOWED)
               for module, line in reached_modules(nodes, allowed)]
    first: dict[str, ImportViolation] = {}
    for module, line, reason in sorted(imported + reached, key=lambda item: item[1]):
        first.setdefault(module, ImportViolation(module, line, reason))
    return list(first.values())
