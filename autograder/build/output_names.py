"""The names of a graded function's outputs, as its docstring's Returns section gives them (course material).

``Z : numpy.ndarray, shape (..., L_q, d_v)`` names ``Z``; ``dQ, dK, dV : numpy.ndarray`` names
three; an entry without ``name :`` (a single array) names nothing. The public checks call an
output by these names ("attention_batched: A"), never by its index in the returned tuple.
"""

from __future__ import annotations

import ast
import inspect
import re

#: An entry line of a numpydoc Returns section that names its outputs: ``name[, name...] : type``.
NAMED_ENTRY = re.compile(r"^([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*:\s*\S")


def _returns_lines(docstring: str) -> list[str]:
    """The lines of the Returns section (dedented), up to the next section."""
    lines = inspect.cleandoc(docstring).splitlines()
    for index, line in enumerate(lines[:-1]):
        if line.strip() == "Returns" and set(lines[index + 1].strip()) == {"-"}:
            section = []
            for following, text in enumerate(lines[index + 2:], start=index + 2):
                nxt = lines[following + 1] if following + 1 < len(lines) else ""
                if text.strip() and not text.startswith(" ") and nxt.strip() and set(nxt.strip()) == {"-"}:
                    break  # the next section's title
                section.append(text)
            return section
    return []


def returned_names(docstring: str) -> tuple[str, ...]:
    """The output names of a Returns section, in order (empty when its entries name none)."""
    names: list[str] = []
    for line in _returns_lines(docstring or ""):
        match = None if line.startswith(" ") else NAMED_ENTRY.match(line)
        if match:
            names += [name.strip() for name in match.group(1).split(",")]
    return tuple(names)


def output_names(module_source: str) -> dict[str, tuple[str, ...]]:
    """Each top-level function of ``module_source`` and the output names its docstring gives."""
    tree = ast.parse(module_source)
    return {node.name: returned_names(ast.get_docstring(node) or "") for node in tree.body
            if isinstance(node, ast.FunctionDef)}
