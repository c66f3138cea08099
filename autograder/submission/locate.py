"""Read a submission from a module, a notebook, a folder or a zip file, with limits.

Everything here only reads bytes and parses; no student code runs.
"""

from __future__ import annotations

import io
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from autograder.errors import LoadFailed
from autograder.student_text import clean_name, clean_text
from autograder.submission.notebook_code import NotebookError, notebook_to_module

#: Largest submission file read, and largest total unpacked from a zip.
MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_ZIP_MEMBERS = 200
MAX_ZIP_UNPACKED_BYTES = 20 * 1024 * 1024
SUFFIXES = (".py", ".ipynb")


@dataclass(frozen=True)
class SubmissionSource:
    """A submission as the worker receives it: module source text and where it came from."""

    module_name: str
    source: str
    origin: str  # the file (or zip member) it was read from
    kind: str  # "module" or "notebook"


def shown(name: str) -> str:
    """A file name as one line of text safe to print and store: undecodable bytes and control
    characters become ``\\xNN`` (see :func:`autograder.student_text.clean_name`)."""
    return clean_name(os.fsencode(name).decode("utf-8", errors="backslashreplace"))


def _decode(data: bytes, origin: str) -> str:
    if b"\x00" in data:
        raise LoadFailed(f"{origin} is a binary file, not Python source or a notebook")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise LoadFailed(f"{origin} is not UTF-8 text (byte {error.start})") from None


#: What makes Python's own parsers give up on a file, and how to say it to the student.
_UNREADABLE = {
    RecursionError: "it nests expressions too deeply for Python's parser",
    MemoryError: "parsing it needs more memory than the grader has",
    UnicodeError: "it holds characters that are not valid Unicode (a lone surrogate)",
}
#: Errors of the standard library's parsers on a malformed notebook (a cell whose source is numbers, say).
NOTEBOOK_PARSE_ERRORS = (NotebookError, TypeError, ValueError, AttributeError, RecursionError, MemoryError)


def could_not_read(origin: str, error: BaseException) -> LoadFailed:
    """The student's result for a file the grader's parsers choke on: ``"<file> could not be read: <why>"``."""
    reason = next((words for kind, words in _UNREADABLE.items() if isinstance(error, kind)), None)
    if reason is None:
        reason = clean_text(error) if isinstance(error, NotebookError) else f"{type(error).__name__}: {clean_text(error)}"
    return LoadFailed(f"{origin} could not be read: {reason}")


def _from_bytes(data: bytes, name: str, module_name: str, origin: str, functions) -> SubmissionSource:
    text = _decode(data, origin)
    if name.endswith(".ipynb"):
        try:
            return SubmissionSource(module_name, notebook_to_module(text, functions), origin, "notebook")
        except NOTEBOOK_PARSE_ERRORS as error:
            raise could_not_read(origin, error) from None
    return SubmissionSource(module_name, text, origin, "module")


def _read_limited(path: Path) -> bytes:
    if not path.is_symlink() and path.exists() and not path.is_file():
        raise LoadFailed(f"{shown(path.name)} is not a regular file")
    if path.is_symlink():
        raise LoadFailed(f"{shown(path.name)} is a symbolic link; submit the file itself")
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise LoadFailed(f"{shown(path.name)} is {size:,} bytes; submissions are limited to {MAX_FILE_BYTES:,}")
        return path.read_bytes()
    except OSError as error:
        raise LoadFailed(f"cannot read {shown(path.name)}: {error.strerror}") from None


def _hidden(relative: Path) -> bool:
    """Inside a dot-folder such as ``.ipynb_checkpoints``, or a dot-file."""
    return any(part.startswith(".") for part in relative.parts)


def _pick(names: list[str], module_file: str, notebook_file: str, where: str) -> str:
    """Choose the submission among candidate names: the expected module, then the notebook, then a lone file."""
    by_base = {PurePosixPath(n).name: n for n in names}
    for preferred in (module_file, notebook_file):
        if preferred in by_base:
            return by_base[preferred]
    candidates = [n for n in names if n.endswith(SUFFIXES) and not PurePosixPath(n).name.startswith(("test_", "."))]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise LoadFailed(f"{shown(where)} holds no {module_file} or {notebook_file}")
    raise LoadFailed(f"{shown(where)} holds several candidates ({', '.join(shown(c) for c in sorted(candidates)[:5])}); name yours {module_file}")


def _from_zip(path: Path, module_file: str, notebook_file: str, module_name: str, functions) -> SubmissionSource:
    data = _read_limited(path)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = [
            m for m in archive.infolist()
            if not m.is_dir() and "__MACOSX" not in m.filename and not _hidden(PurePosixPath(m.filename))
        ]
    except zipfile.BadZipFile:
        raise LoadFailed(f"{shown(path.name)} is not a valid zip file") from None
    if len(members) > MAX_ZIP_MEMBERS or sum(m.file_size for m in members) > MAX_ZIP_UNPACKED_BYTES:
        raise LoadFailed(f"{shown(path.name)} unpacks to too many files or bytes (limit {MAX_ZIP_UNPACKED_BYTES:,} bytes)")
    chosen = _pick([m.filename for m in members], module_file, notebook_file, path.name)
    member = next(m for m in members if m.filename == chosen)
    if member.file_size > MAX_FILE_BYTES:
        raise LoadFailed(f"{shown(chosen)} in {shown(path.name)} is larger than {MAX_FILE_BYTES:,} bytes")
    with archive.open(member) as handle:
        content = handle.read(MAX_FILE_BYTES + 1)
    if len(content) > MAX_FILE_BYTES:
        raise LoadFailed(f"{shown(chosen)} in {shown(path.name)} is larger than {MAX_FILE_BYTES:,} bytes")
    return _from_bytes(content, chosen, module_name, f"{shown(path.name)}:{shown(chosen)}", functions)


def read_submission(path: Path, module_file: str, notebook_file: str, functions=None) -> SubmissionSource:
    """Read the submission at ``path`` for an assignment whose files are named as given.

    Parameters
    ----------
    path : Path
        A ``.py`` module, an ``.ipynb`` notebook, a folder holding one, or a ``.zip``.
    module_file, notebook_file : str
        The assignment's expected file names (from course.yml).
    functions : iterable of str, optional
        The graded functions; a notebook keeps only them and what they use.

    Raises
    ------
    LoadFailed
        With a message for the student when nothing gradable can be read.
    """
    module_name = module_file.removesuffix(".py")
    path = Path(path)
    if path.is_dir():
        try:
            names = [
                str(p.relative_to(path)) for p in sorted(path.rglob("*"))
                if p.is_file() and not p.is_symlink() and not _hidden(p.relative_to(path))
            ]
        except OSError as error:
            raise LoadFailed(f"cannot list {shown(path.name)}: {error.strerror}") from None
        chosen = _pick(names, module_file, notebook_file, f"folder {shown(path.name)}")
        return _from_bytes(_read_limited(path / chosen), chosen, module_name, f"{shown(path.name)}/{shown(chosen)}", functions)
    if not path.exists():
        raise LoadFailed(f"{shown(str(path))} does not exist")
    if path.suffix == ".zip":
        return _from_zip(path, module_file, notebook_file, module_name, functions)
    if path.suffix not in SUFFIXES:
        raise LoadFailed(f"{shown(path.name)}: expected a .py module, an .ipynb notebook, a folder or a .zip")
    return _from_bytes(_read_limited(path), path.name, module_name, shown(path.name), functions)
