"""Find solution code, hidden tests or reference code in what students receive.

A release leaks when one of its lines equals (after stripping) a *forbidden* line: a code
line of a solution region, of a hidden test, or of the reference implementation. Short
lines (``return Z, A``) are too common to mean anything and are skipped.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path

from autograder.build.markers import solution_code_lines

#: Stripped lines shorter than this are not evidence of a leak.
MIN_LEAK_LINE_CHARS = 24
#: Reference modules that only demonstrate (the worked-example trace and its plots); the
#: notebooks teach the same plotting idioms, which are no answer to any question.
REFERENCE_DEMO_MODULES = ("trace.py",)
#: Lines that are the public contract or boilerplate (signatures, imports, comments), never leaks.
PUBLIC_LINE_PREFIXES = ("#", "import ", "from ", "def ", "class ", "@")


@dataclass(frozen=True)
class Leak:
    """A release line found among the forbidden ones."""

    release_file: str
    line_number: int
    line: str
    source: str


def _significant(line: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= MIN_LEAK_LINE_CHARS and not stripped.startswith(PUBLIC_LINE_PREFIXES)


def code_lines(source: str) -> list[str]:
    """Stripped lines of the statements of a module; docstrings, signatures and comments excluded."""
    lines = source.splitlines()
    tree = ast.parse(source)
    docstring_lines = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            docstring_lines.update(range(node.lineno - 1, node.body[0].lineno - 1))  # the signature: public

        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
            docstring_lines.update(range(body[0].lineno - 1, body[0].end_lineno))
    return [line.strip() for number, line in enumerate(lines) if number not in docstring_lines and _significant(line)]


def forbidden_lines(solution_masters: list[str], hidden_tests: list[str], reference_modules: list[str]) -> dict[str, str]:
    """Map each forbidden line to where it comes from."""
    forbidden: dict[str, str] = {}
    for text in reference_modules:
        forbidden.update((line, "attn_reference") for line in code_lines(text))
    for text in hidden_tests:
        forbidden.update((line, "hidden tests") for line in code_lines(text))
    for text in solution_masters:
        forbidden.update((line, "solution code") for line in solution_code_lines(text) if _significant(line))
    return forbidden


def _readable_lines(name: str, text: str) -> list[str]:
    """The lines a student reads: for a notebook, the lines of its cells, not of its JSON."""
    if not name.endswith(".ipynb"):
        return text.splitlines()
    cells = json.loads(text).get("cells", [])
    sources = ("".join(c.get("source", "")) if isinstance(c.get("source"), list) else c.get("source", "") for c in cells)
    return [line for source in sources for line in source.splitlines()]


def find_leaks(release_files: dict[str, str | bytes], forbidden: dict[str, str]) -> list[Leak]:
    """Every release line (notebook cells included) that is a forbidden line; binary files hold no code lines."""
    return [
        Leak(name, number, line.strip(), forbidden[line.strip()])
        for name, text in sorted(release_files.items())
        if isinstance(text, str)
        for number, line in enumerate(_readable_lines(name, text), start=1)
        if line.strip() in forbidden
    ]


def project_forbidden_lines(solutions_dir: Path, hidden_dir: Path, reference_dir: Path, module_files: list[Path]) -> dict[str, str]:
    """Forbidden lines of this project: all masters, hidden tests and reference modules."""
    return forbidden_lines(
        _read_all(module_files),
        _read_all(sorted(hidden_dir.rglob("*.py"))),
        _read_all(sorted(p for p in reference_dir.glob("*.py") if p.name not in REFERENCE_DEMO_MODULES)),
    )


def _read_all(paths: list[Path]) -> list[str]:
    return [path.read_text(encoding="utf-8") for path in paths]


def course_forbidden_lines(course) -> dict[str, str]:
    """Forbidden lines of the course's masters, hidden tests and reference, from its layout."""
    layout = course.layout
    masters = [layout.master(a) for a in course.assignments]
    return project_forbidden_lines(layout.solutions, layout.hidden_tests, layout.reference, masters)
