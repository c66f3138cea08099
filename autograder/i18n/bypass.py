"""Find student-facing text that bypasses the message catalog.

The modules that write what students read are listed in :data:`STUDENT_TEXT_MODULES`. In
them, every string literal that reads as prose (two words in a row, once markup and
``{placeholders}`` are set aside) must be a catalog template: the first argument of
``msg``, ``msg_n`` or ``N_`` (see :mod:`autograder.i18n.extract`). Exempt are docstrings,
the text of errors meant for the instructor or the developer (any exception but the
student-facing ones of :data:`STUDENT_ERRORS`), and the literals of
:data:`NOT_STUDENT_TEXT`, each with the reason it is not translated: one table a reviewer
can read.

A prose literal anywhere else (an f-string handed to ``LoadFailed``, a label written
straight into a report) would reach a student in English whatever their language: it is
reported with its file and line.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from autograder.i18n.extract import MARKERS, PACKAGE_DIR, marker_name

#: The course's files (globs relative to the course directory beside the package) whose text reaches students.
COURSE_TEXT_FILES = ("hidden_tests/*/test_*.py", "mistakes/*.py")
#: The modules (globs relative to the package) whose text reaches students.
STUDENT_TEXT_MODULES = (
    "check/api.py", "check/checklib.py", "check/command.py", "check/live.py", "check/policy.py", "check/runner.py",
    "diagnose/phrases.py", "diagnose/properties.py", "diagnose/registry.py", "diagnose/probes/*.py",
    "engine/outcome.py",
    "export/actions_report.py", "export/namespace.py", "export/notebooks.py", "export/runtime.py",
    "grade/api.py", "grade/expect.py", "grade/figures.py", "grade/load_notes.py", "report/html.py", "report/text.py",
    "grade/static_check.py",
    "gradebook/export.py",
    "sandbox/client.py", "sandbox/process.py", "sandbox/reported.py", "sandbox/returned.py", "sandbox/worker.py",
    "submission/locate.py", "submission/notebook_code.py",
)
#: Errors whose message a student reads: their text must come from the catalog.
STUDENT_ERRORS = frozenset({
    "SubmissionError", "NotImplementedYet", "StudentException", "CallTimeout", "WorkerCrashed", "BadReturn",
    "LoadFailed", "MissingFunction", "CheckFailed", "Mismatch", "Failure",
})
#: Other callables named like exceptions whose text is the instructor's (errors that stop the grader).
INSTRUCTOR_ERRORS = frozenset({"AmbiguousSubmission", "Interrupted"})
#: Prose literals of those modules that are not feedback (the start of the literal -> why it stays as it is).
NOT_STUDENT_TEXT = {
    "Traceback (most recent call last)": "Python's own traceback header, part of the student's traceback",
    "text: one line per question": "command-line help, English like every --help",
    "the language of the job summary": "command-line help, English like every --help",
    "Check again each time you save": "command-line help, English like every --help",
    "a readable report, one block per": "command-line help (the --format choices), English like every --help",
    "every field of the result": "command-line help (the --format choices), English like every --help",
    "JUnit XML, one testcase per test": "command-line help (the --format choices), English like every --help",
    "one self-contained HTML page": "command-line help (the --format choices), English like every --help",
    "### BEGIN HIDDEN TESTS": "nbgrader's marker, code of the grade cell",
    "### END HIDDEN TESTS": "nbgrader's marker, code of the grade cell",
    "from autograder.export.runtime import": "code of nbgrader's grade cell",
    "\n[... output truncated at": "the student's own output as the instructor's record keeps it",
    "import os; os.setgroups": "code run by the sandbox",
    "feedback on ": "what the gradebook command tells the instructor, English like every instructor message",
    " and {} more": "part of the instructor's note on other feedback folders",
    "note: {} other folders": "what the gradebook command tells the instructor, English like every instructor message",
    "truth value of an array": "numpy's error message, matched to recognise it",
    "axes don't match array": "numpy's error message, matched to recognise it",
    "Output operand 0 has a mismatch": "numpy's error message, matched to recognise it",
    "non-broadcastable output operand": "numpy's error message, matched to recognise it",
    "size (\\d+) is different from": "numpy's error message, matched to recognise it",
    "cannot reshape array of size": "numpy's error message, matched to recognise it",
    "could not be broadcast together": "numpy's error message, matched to recognise it",
    " not aligned": "numpy's error message, matched to recognise it",
}
_EXCEPTION_NAME = re.compile(r"[A-Z]\w*(Error|Exception)$")
_MARKUP = re.compile(r"<[^>]*>|\{[^{}]*\}|&\w+;")
_PROSE = re.compile(r"[A-Za-z]{2,}[ ,;:']+[A-Za-z]{2,}")


def reads_as_prose(text: str) -> bool:
    """Two words in a row outside markup and placeholders (``"could not be read"``, not ``'<p class="x">'``)."""
    return _PROSE.search(_MARKUP.sub(" ", text)) is not None


def _callee(call: ast.Call) -> str:
    return getattr(call.func, "id", None) or getattr(call.func, "attr", None) or ""


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                found.add(id(first.value))
    return found


def _exempt(tree: ast.AST) -> set[int]:
    """Ids of the literal nodes that are not student text: docstrings, catalog templates, instructors' errors."""
    exempt = _docstrings(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        marker = marker_name(node)
        if marker is not None:
            exempt.update(id(arg) for arg in node.args[: MARKERS[marker]])
            continue
        name = _callee(node)
        if name not in STUDENT_ERRORS and (_EXCEPTION_NAME.match(name) or name in INSTRUCTOR_ERRORS):
            exempt.update(id(inner) for inner in ast.walk(node))
    return exempt


def _literal_text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)
    return None


def bypasses(source: str, where: str) -> list[str]:
    """``where:line: text`` for every prose literal of ``source`` that is not a catalog template (nor exempt)."""
    tree = ast.parse(source)
    exempt = _exempt(tree)
    inside_fstrings = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in ast.walk(node)
                       if part is not node}
    found = []
    for node in ast.walk(tree):
        text = _literal_text(node)
        if text is None or id(node) in exempt or id(node) in inside_fstrings or not reads_as_prose(text):
            continue
        if text.startswith(tuple(NOT_STUDENT_TEXT)):
            continue
        found.append(f"{where}:{node.lineno}: {text[:80]!r}")
    return found


def student_text_files(package_dir: Path = PACKAGE_DIR) -> list[Path]:
    """The files of :data:`STUDENT_TEXT_MODULES`, and the course's of :data:`COURSE_TEXT_FILES`."""
    course = {path for pattern in COURSE_TEXT_FILES for path in package_dir.parent.glob(pattern)}
    return sorted(course | {path for pattern in STUDENT_TEXT_MODULES for path in package_dir.glob(pattern)})


def scan(package_dir: Path = PACKAGE_DIR) -> list[str]:
    """Every bypass in the student-text modules of the package."""
    found = []
    for path in student_text_files(package_dir):
        found += bypasses(path.read_text(encoding="utf-8"), path.relative_to(package_dir.parent).as_posix())
    return found
