"""Every message id the code can show a student, read from the source (what ``xgettext`` does).

Two kinds of entries:

- the literal templates of the catalog's markers, ``msg("...")``, ``msg_n("...", "...", n)``
  and ``N_("...")``, in every module of the ``autograder`` package (the public checks' helpers
  included) and of the project course's hidden suites and mistakes (``hidden_tests/`` and ``mistakes/`` beside
  ``course.yml``: the hints of its bugs among them);
- the first line of every hidden test's docstring, which students read as the test's
  description.

A marker whose template is not a literal cannot be extracted and is reported as a problem:
a translator could never see it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

#: The marker functions, and how many leading arguments of each are templates (singular, plural).
MARKERS = {"msg": 1, "msg_n": 2, "N_": 1}
#: The package whose modules are read, and the hidden tests' folder beside it (in the project's course).
PACKAGE_DIR = Path(__file__).resolve().parent.parent
HIDDEN_TESTS = "hidden_tests"
#: The course's mistakes folder beside it (the hints of the course's bugs, the facts of its mutants).
MISTAKES = "mistakes"


@dataclass(frozen=True)
class Extracted:
    """A message id and where the code uses it."""

    msgid: str
    msgid_plural: str | None
    reference: str  # "autograder/judge/messages.py:42"

    @property
    def key(self) -> tuple[str, str | None]:
        return self.msgid, self.msgid_plural


def marker_name(call: ast.Call) -> str | None:
    """The marker a call is (``msg``, ``msg_n``, ``N_``), or None."""
    name = getattr(call.func, "id", None) or getattr(call.func, "attr", None)
    return name if name in MARKERS else None


def _literal(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def marked_templates(tree: ast.AST, where: str) -> tuple[list[Extracted], list[str]]:
    """(entries, problems) of the markers in ``tree``; ``where`` names the file in references."""
    found, problems = [], []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or marker_name(node) is None:
            continue
        count = MARKERS[marker_name(node)]
        templates = [_literal(arg) for arg in node.args[:count]]
        if len(templates) < count or None in templates:
            problems.append(f"{where}:{node.lineno}: {marker_name(node)}() needs a literal template")
            continue
        found.append(Extracted(templates[0], templates[1] if count == 2 else None, where))
    return found, problems


def test_descriptions(tree: ast.AST, where: str) -> list[Extracted]:
    """The first line of the docstring of every ``test_*`` function (what the engine shows as its description)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            doc = (ast.get_docstring(node, clean=False) or node.name).strip().splitlines()[0]
            found.append(Extracted(doc, None, where))
    return found


test_descriptions.__test__ = False  # not a pytest test


def _relative(path: Path, package_dir: Path) -> str:
    return path.relative_to(package_dir.parent).as_posix()


def _sources(package_dir: Path) -> list[Path]:
    """The package's modules, then the hidden suites and the mistakes of the course beside it."""
    course = package_dir.parent
    return [*sorted(package_dir.rglob("*.py")), *sorted((course / HIDDEN_TESTS).glob("*/*.py")),
            *sorted((course / MISTAKES).glob("*.py"))]


def extract(package_dir: Path = PACKAGE_DIR, files: list[Path] | None = None) -> tuple[dict, list[str]]:
    """Every message id of the package (or of ``files``): (key -> references, problems).

    The key is ``(msgid, msgid_plural)``; entries keep the order of first use.
    """
    entries: dict[tuple[str, str | None], list[str]] = {}
    problems: list[str] = []
    for path in files if files is not None else _sources(package_dir):
        where = _relative(path, package_dir)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=where)
        found, wrong = marked_templates(tree, where)
        if HIDDEN_TESTS in path.relative_to(package_dir.parent).parts and path.name.startswith("test_"):
            found += test_descriptions(tree, where)
        problems += wrong
        for item in found:
            entries.setdefault(item.key, []).append(item.reference)
    return entries, problems
