"""What a release hands students, kept to tell a file they changed from one they did not.

A release remembers its stub module and the gradable code of its stub notebook (as text, or
as a digest in ``release.json``); a candidate file identical to one of them, whitespace at
line ends aside (for a notebook: its gradable code, docstrings aside, so that the notebook of
every language compares with the one stub), is untouched
(see :func:`autograder.submission.locate.choose`).
"""

from __future__ import annotations

import ast
import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

from autograder.file_stamp import CACHED_PER_KIND, stamps
from autograder.submission.notebook_code import NotebookError, notebook_to_module


@dataclass(frozen=True)
class ReleaseStubs:
    """What the release hands students, to tell a changed file from an untouched one.

    Attributes
    ----------
    module : str or None
        The stub module's text.
    notebook_code : str or None
        The gradable code of the stub notebook (see :func:`notebook_to_module`).
    functions : tuple of str
        The graded functions (what a notebook's gradable code keeps).
    """

    module: str | None = None
    notebook_code: str | None = None
    functions: tuple[str, ...] | None = None
    module_digest: str | None = None
    notebook_code_digest: str | None = None

    def knows(self, name: str) -> bool:
        """Whether there is a stub (its text or its digest) of the kind of file ``name`` is."""
        if name.endswith(".ipynb"):
            return self.notebook_code is not None or self.notebook_code_digest is not None
        return self.module is not None or self.module_digest is not None

    def is_module(self, text: str) -> bool:
        """Whether ``text`` is the stub module (whitespace at line ends aside)."""
        if self.module is not None:
            return _normalised(text) == _normalised(self.module)
        return self.module_digest is not None and stub_digest(text) == self.module_digest

    def is_notebook_code(self, code: str) -> bool:
        """Whether ``code`` is the gradable code of the stub notebook, its docstrings (translated or not) aside."""
        if self.notebook_code is not None:
            return _same_notebook_code(code, self.notebook_code)
        return self.notebook_code_digest is not None and notebook_code_digest(code) == self.notebook_code_digest


def stub_digest(text: str) -> str:
    """SHA-256 of a text with whitespace at line ends ignored: how a release remembers its stubs."""
    return hashlib.sha256(_normalised(text).encode("utf-8", errors="surrogatepass")).hexdigest()


def notebook_code_digest(code: str) -> str:
    """The digest a release keeps of its stub notebook's gradable code: docstrings aside, so the
    notebook in every language has the same one (see :func:`stub_digest`)."""
    try:
        return stub_digest(_without_docstrings(code))
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return stub_digest(code)


def release_stubs(release_dir: Path, module_file: str, notebook_file: str, functions=None) -> ReleaseStubs:
    """The stubs of a built release folder (missing files are simply unknown); read once while the files stay the same."""
    functions = tuple(functions) if functions is not None else None
    module, notebook = release_dir / module_file, release_dir / notebook_file
    return _release_stubs(module, notebook, functions, stamps((module, notebook)))


@functools.lru_cache(maxsize=CACHED_PER_KIND)
def _release_stubs(module: Path, notebook: Path, functions: tuple[str, ...] | None, _stamps: tuple) -> ReleaseStubs:
    module_text = module.read_text(encoding="utf-8") if module.is_file() else None
    try:
        notebook_code = notebook_to_module(notebook.read_text(encoding="utf-8"), functions) if notebook.is_file() else None
    except NotebookError:
        notebook_code = None
    return ReleaseStubs(module_text, notebook_code, functions)


def _normalised(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


#: Nodes whose first statement may be a docstring.
_DOCUMENTED = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _without_docstrings(code: str) -> str:
    """The code's syntax tree without docstrings: what a notebook in every language shares."""
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, _DOCUMENTED) and ast.get_docstring(node, clean=False) is not None:
            node.body = node.body[1:] or [ast.Pass()]
    return ast.dump(tree)


def _same_notebook_code(code: str, stub_code: str) -> bool:
    """Whether a notebook's gradable code is the stub's, its docstrings (translated or not) aside."""
    if code == stub_code:
        return True
    try:
        return _without_docstrings(code) == _without_docstrings(stub_code)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return False
