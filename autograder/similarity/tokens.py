"""A graded function as a stream of normalised syntax-tree tokens, each with its source line.

The tree is walked in pre-order. Every local name (an argument, a name the function assigns)
becomes ``V``, so renaming variables changes nothing; the names the function reads from
outside (``np``, ``math``, another graded function), attribute names (``np.exp``'s ``exp``)
and keyword names (``axis=``) are kept, because they are the solution's substance. Numbers
become ``C:n``, strings ``C:s``; docstrings, comments and layout are gone. Nothing is run:
the source is only parsed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

#: Node types that carry no information of their own (a name's load or store context).
_SILENT = (ast.expr_context,)


@dataclass(frozen=True)
class Token:
    """One token: its text and the source line of the node it stands for."""

    text: str
    line: int


def _locals(function: ast.FunctionDef) -> set[str]:
    names = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
    return names


def _label(node: ast.AST, local: set[str]) -> str:
    if isinstance(node, ast.Name):
        return "V" if node.id in local else f"N:{node.id}"
    if isinstance(node, ast.arg):
        return "V"
    if isinstance(node, ast.Attribute):
        return f"A:{node.attr}"
    if isinstance(node, ast.keyword):
        return f"K:{node.arg}"
    if isinstance(node, ast.Constant):
        value = node.value
        return "C:n" if isinstance(value, (int, float, complex)) and not isinstance(value, bool) else \
            "C:s" if isinstance(value, (str, bytes)) else f"C:{value!r}"
    return type(node).__name__


def _body(function: ast.FunctionDef) -> list[ast.stmt]:
    body = list(function.body)
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        body = body[1:]  # the docstring
    return body


def function_tokens(tree: ast.Module, name: str) -> list[Token]:
    """The tokens of the top-level function ``name`` of ``tree`` (empty when there is none).

    The walk uses its own stack: a deeply nested expression costs memory, not the interpreter's recursion limit.
    """
    found = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
    if not found:
        return []
    function = found[-1]  # the definition that counts, as when the module is imported
    local, tokens = _locals(function), []
    stack = [(node, function.lineno) for node in reversed(_body(function))]
    while stack:
        node, line = stack.pop()
        if isinstance(node, _SILENT):
            continue
        line = getattr(node, "lineno", line)
        tokens.append(Token(_label(node, local), line))
        stack.extend((child, line) for child in reversed(list(ast.iter_child_nodes(node))))
    return tokens


def parse(source: str) -> ast.Module | None:
    """``source`` parsed, or None when it does not parse (such a submission has no function to compare)."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
