"""Read a submission from a module, a notebook, a folder or a zip file, with limits.

Everything here only reads bytes and parses; no student code runs.

Which file of a folder or zip is graded (:func:`choose`):

1. Files named like the assignment's module or notebook (in any language of the release:
   ``scaled_attention.zh.ipynb`` too) win over any other file; among them, the ones closest
   to the top of the folder win over nested ones (``old/`` copies).
2. Of those, a file byte-identical to the release's stub (for a notebook: whose gradable
   code is the stub's, docstrings aside, so that the notebook of every language compares
   with the one stub) is left out: the student changed the other one.
3. One changed file left: it is graded. None changed: the untouched module is graded (and
   scores 0). Two or more changed: :class:`~autograder.errors.AmbiguousSubmission` names them;
   a person must say which one counts.
4. No such file: a lone ``.py``/``.ipynb`` (not ``test_*``) under any name is graded.
"""

from __future__ import annotations

import functools
import io
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from typing import Callable

from autograder.errors import AmbiguousSubmission, LoadFailed
from autograder.i18n import Message, N_, msg
from autograder.languages import file_names_in_every_language
from autograder.student_text import clean_name, clean_text
from autograder.submission.notebook_code import CodeCell, NotebookError, extract_cells, gradable_source, notebook_cells
from autograder.submission.stubs import ReleaseStubs, notebook_code_digest, release_stubs, stub_digest  # noqa: F401 - also read from here

#: Largest submission file read, and largest total unpacked from a zip.
MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_ZIP_MEMBERS = 200
MAX_ZIP_UNPACKED_BYTES = 20 * 1024 * 1024
#: Most code graded: a module's bytes, or the bytes of a notebook's code cells (its outputs and
#: prose do not count); twenty times the largest solution module. More is "too large to grade",
#: said before any of it is parsed: reading and parsing this much takes the grader about a second.
MAX_CODE_BYTES = 256 * 1024
SUFFIXES = (".py", ".ipynb")


@dataclass(frozen=True)
class SubmissionSource:
    """A submission as the worker receives it: module source text and where it came from."""

    module_name: str
    source: str
    origin: str  # the file (or zip member) it was read from
    kind: str  # "module" or "notebook"
    notes: tuple[str, ...] = ()  # what the student should know about reading it (a graded cell that does not parse)
    real_path: str = field(default="", compare=False)  # the file on disk (a zip's member after a colon)


def is_untouched_stub(name: str, read: Callable[[str], bytes], stubs: ReleaseStubs) -> bool:
    """Whether a candidate file is the release's stub as handed out (whitespace at line ends aside).

    The file is read only when there is a stub of its kind to compare it with.
    """
    if not stubs.knows(name):
        return False
    data = read(name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    if name.endswith(".ipynb"):
        try:
            cells = notebook_cells(text)
            if code_bytes(cells) > MAX_CODE_BYTES:
                return False  # more code than is graded: certainly not the stub
            return stubs.is_notebook_code(gradable_source([cell.source for cell in cells], stubs.functions))
        except NOTEBOOK_PARSE_ERRORS:
            return False  # unreadable: certainly not the stub
    return len(data) <= MAX_CODE_BYTES and stubs.is_module(text)


def shown(name: str) -> str:
    """A file name as one line of text safe to print and store: undecodable bytes and control
    characters become ``\\xNN`` (see :func:`autograder.student_text.clean_name`)."""
    return clean_name(os.fsencode(name).decode("utf-8", errors="backslashreplace"))


def _decode(data: bytes, origin: str) -> str:
    if b"\x00" in data:
        raise LoadFailed(msg("{file} is a binary file, not Python source or a notebook", file=origin))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise LoadFailed(msg("{file} is not UTF-8 text (byte {byte})", file=origin, byte=str(error.start))) from None


#: What makes Python's own parsers give up on a file, and how to say it to the student.
_UNREADABLE = {
    RecursionError: N_("it nests expressions too deeply for Python's parser"),
    MemoryError: N_("parsing it needs more memory than the grader has"),
    UnicodeError: N_("it holds characters that are not valid Unicode (a lone surrogate)"),
}
#: Errors of the standard library's parsers on a malformed notebook (a cell whose source is numbers, say).
NOTEBOOK_PARSE_ERRORS = (NotebookError, TypeError, ValueError, AttributeError, RecursionError, MemoryError)


def code_bytes(cells: list[CodeCell]) -> int:
    """The bytes of code of a notebook's code cells (UTF-8; a lone surrogate counts as its three bytes)."""
    return sum(len(cell.source.encode("utf-8", errors="surrogatepass")) for cell in cells)


def within_code_limit(size: int, origin: str) -> None:
    """Refuse, before any of it is parsed, a submission of more than :data:`MAX_CODE_BYTES` of code.

    Raises
    ------
    LoadFailed
        "too large to grade", with both sizes.
    """
    if size > MAX_CODE_BYTES:
        raise LoadFailed(msg("{file} is too large to grade: it holds {size} bytes of code, more than the {limit} accepted",
                             file=origin, size=f"{size:,}", limit=f"{MAX_CODE_BYTES:,}"))


def could_not_read(origin: str, error: BaseException) -> LoadFailed:
    """The student's result for a file the grader's parsers choke on: ``"<file> could not be read: <why>"``."""
    words = next((words for kind, words in _UNREADABLE.items() if isinstance(error, kind)), None)
    if words is not None:
        reason = Message(words)
    else:
        reason = Message(error.template, error.facts) if isinstance(error, NotebookError) \
            else f"{type(error).__name__}: {clean_text(error)}"
    return LoadFailed(msg("{file} could not be read: {reason}", file=origin, reason=reason))


def _from_bytes(data: bytes, name: str, module_name: str, origin: str, functions, real_path: str = "") -> SubmissionSource:
    text = _decode(data, origin)
    if not name.endswith(".ipynb"):
        within_code_limit(len(data), origin)
        return SubmissionSource(module_name, text, origin, "module", real_path=real_path)
    try:
        cells = notebook_cells(text)
        within_code_limit(code_bytes(cells), origin)
        code = extract_cells(cells, functions)
    except NOTEBOOK_PARSE_ERRORS as error:
        raise could_not_read(origin, error) from None
    if not code.code_cell_count:
        raise LoadFailed(msg("{file} has no code cells: write your functions in the notebook's code cells", file=origin))
    notes = tuple(Message(template, facts) for template, facts in code.said)
    return SubmissionSource(module_name, code.source, origin, "notebook", notes, real_path)


def _read_limited(path: Path) -> bytes:
    if not path.is_symlink() and path.exists() and not path.is_file():
        raise LoadFailed(msg("{file} is not a regular file", file=shown(path.name)))
    if path.is_symlink():
        raise LoadFailed(msg("{file} is a symbolic link; submit the file itself", file=shown(path.name)))
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise LoadFailed(msg("{file} is {size} bytes; submissions are limited to {limit}", file=shown(path.name),
                                 size=f"{size:,}", limit=f"{MAX_FILE_BYTES:,}"))
        return path.read_bytes()
    except OSError as error:
        raise LoadFailed(msg("cannot read {file}: {error}", file=shown(path.name), error=str(error.strerror))) from None


def _hidden(relative: Path) -> bool:
    """Inside a dot-folder such as ``.ipynb_checkpoints``, or a dot-file."""
    return any(part.startswith(".") for part in relative.parts)


def _depth(name: str) -> int:
    return len(PurePosixPath(name).parts)


def _place(where: str) -> str:
    """Where candidates were looked for, as shown: a message (``folder X``) as it is, a name made safe."""
    return where if isinstance(where, Message) else shown(where)


def choose(
    names: list[str], module_file: str, notebook_file: str, where: Message | str,
    read: Callable[[str], bytes], stubs: ReleaseStubs = ReleaseStubs(),
) -> str:
    """The candidate to grade among ``names`` (paths relative to the folder or zip), by the rule above.

    Raises
    ------
    AmbiguousSubmission
        When two or more changed files compete.
    LoadFailed
        When nothing gradable is there.
    """
    expected_names = (module_file, *file_names_in_every_language(notebook_file))
    expected = [n for n in names if PurePosixPath(n).name in expected_names]
    if expected:
        shallowest = min(map(_depth, expected))
        top = sorted(n for n in expected if _depth(n) == shallowest)
        changed = _changed(top, read, stubs)
        if len(changed) > 1:
            raise AmbiguousSubmission(msg(
                "the files {first} and {second} in {where} are both changed from the release; keep only the file to "
                "be graded (or name the submission's file explicitly)",
                first=shown(changed[0]), second=shown(changed[1]), where=_place(where)))
        if changed:
            return changed[0]
        return sorted(top, key=lambda n: (PurePosixPath(n).name != module_file, n))[0]
    candidates = [n for n in names if n.endswith(SUFFIXES) and not PurePosixPath(n).name.startswith(("test_", "."))]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise LoadFailed(msg("{where} holds no {module} or {notebook}", where=_place(where), module=module_file,
                             notebook=notebook_file))
    raise LoadFailed(msg("{where} holds several candidates ({candidates}); name yours {module}", where=_place(where),
                         candidates=", ".join(shown(c) for c in sorted(candidates)[:5]), module=module_file))


def changed_in_folder(folder: Path, module_file: str, notebook_file: str, stubs: ReleaseStubs) -> list[Path]:
    """The assignment's files at the top of ``folder`` (its module, its notebook in every language) that differ
    from the release's stubs, the one saved last first."""
    names = (module_file, *file_names_in_every_language(notebook_file))
    files = [folder / name for name in names if (folder / name).is_file() and not (folder / name).is_symlink()]
    changed = [file for file in files if not is_untouched_stub(file.name, lambda name: _read_limited(folder / name), stubs)]
    return sorted(changed, key=lambda file: file.stat().st_mtime_ns, reverse=True)


def _changed(names: list[str], read: Callable[[str], bytes], stubs: ReleaseStubs) -> list[str]:
    """The first two of ``names`` that are not the untouched stub (two are enough to refuse to choose)."""
    changed = []
    for name in names:
        if len(changed) < 2 and not is_untouched_stub(name, read, stubs):
            changed.append(name)
    return changed


def _too_large(name: str, zip_name: str) -> LoadFailed:
    return LoadFailed(msg("{file} in {zip} is larger than {limit} bytes", file=shown(name), zip=shown(zip_name),
                          limit=f"{MAX_FILE_BYTES:,}"))


def _member_reader(archive: zipfile.ZipFile, members: dict, zip_name: str) -> Callable[[str], bytes]:
    """Reads a zip member by name, refusing one over the file limit without unpacking it."""

    def read(name: str) -> bytes:
        member = members[name]
        if member.file_size > MAX_FILE_BYTES:
            raise _too_large(name, zip_name)
        try:
            with archive.open(member) as handle:
                content = handle.read(MAX_FILE_BYTES + 1)
        except Exception as error:  # noqa: BLE001 - damaged, encrypted, oddly compressed: whatever zipfile or a decompressor raises
            raise LoadFailed(msg("{file} in {zip} cannot be unpacked: {error}", file=shown(name), zip=shown(zip_name),
                                 error=clean_text(error) or type(error).__name__)) from None
        if len(content) > MAX_FILE_BYTES:
            raise _too_large(name, zip_name)
        return content

    return read


def _from_zip(path: Path, expected: tuple[str, str], module_name: str, functions, stubs: ReleaseStubs) -> SubmissionSource:
    data = _read_limited(path)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = {
            m.filename: m for m in archive.infolist()
            if not m.is_dir() and "__MACOSX" not in m.filename and not _hidden(PurePosixPath(m.filename))
        }
    except zipfile.BadZipFile:
        raise LoadFailed(msg("{file} is not a valid zip file", file=shown(path.name))) from None
    if len(members) > MAX_ZIP_MEMBERS or sum(m.file_size for m in members.values()) > MAX_ZIP_UNPACKED_BYTES:
        raise LoadFailed(msg("{file} unpacks to too many files or bytes (limit {limit} bytes)", file=shown(path.name),
                             limit=f"{MAX_ZIP_UNPACKED_BYTES:,}"))
    read = functools.cache(_member_reader(archive, members, path.name))
    chosen = choose(sorted(members), *expected, path.name, read, stubs)
    origin = f"{shown(path.name)}:{shown(chosen)}"
    return _from_bytes(read(chosen), chosen, module_name, origin, functions, f"{_real(path)}:{shown(chosen)}")


def _real(path: Path) -> str:
    """The absolute path of a file, as one safe line."""
    return shown(str(path.resolve()))


def _inside(path: Path, folders: tuple[Path, ...]) -> bool:
    resolved = path.resolve()
    return any(resolved == folder or folder in resolved.parents for folder in (f.resolve() for f in folders))


def _from_folder(path: Path, expected: tuple[str, str], module_name: str, functions, stubs, exclude) -> SubmissionSource:
    try:
        names = [
            str(p.relative_to(path)) for p in sorted(path.rglob("*"))
            if p.is_file() and not p.is_symlink() and not _hidden(p.relative_to(path)) and not _inside(p, exclude)
        ]
    except OSError as error:
        raise LoadFailed(msg("cannot list {file}: {error}", file=shown(path.name), error=str(error.strerror))) from None
    read = functools.cache(lambda name: _read_limited(path / name))
    folder = path.resolve().name
    chosen = choose(names, *expected, msg("folder {name}", name=shown(folder)), read, stubs)
    origin = f"{shown(folder)}/{shown(chosen)}"
    return _from_bytes(read(chosen), chosen, module_name, origin, functions, _real(path / chosen))


def read_submission(
    path: Path, module_file: str, notebook_file: str, functions=None, *,
    stubs: ReleaseStubs = ReleaseStubs(), exclude: tuple[Path, ...] = (),
) -> SubmissionSource:
    """Read the submission at ``path`` for an assignment whose files are named as given.

    Parameters
    ----------
    path : Path
        A ``.py`` module, an ``.ipynb`` notebook, a folder holding one, or a ``.zip``.
    module_file, notebook_file : str
        The assignment's expected file names (from course.yml).
    functions : iterable of str, optional
        The graded functions; a notebook keeps only them and what they use.
    stubs : ReleaseStubs
        The release's stubs: a file identical to one counts as untouched (see :func:`choose`).
    exclude : tuple of Path
        Folders whose files are never picked (``check`` excludes the instructor's masters).

    Raises
    ------
    LoadFailed
        With a message for the student when nothing gradable can be read.
    AmbiguousSubmission
        When a folder or zip holds several changed candidates.
    """
    module_name = module_file.removesuffix(".py")
    path = Path(path)
    expected = (module_file, notebook_file)
    if exclude and path.exists() and not path.is_dir() and _inside(path, exclude):
        raise LoadFailed(msg("{file} belongs to the course's own code or masters, not to a submission", file=shown(path.name)))
    if path.is_dir():
        return _from_folder(path, expected, module_name, functions, stubs, exclude)
    if not path.exists():
        raise LoadFailed(msg("{file} does not exist", file=shown(str(path))))
    if path.suffix == ".zip":
        return _from_zip(path, expected, module_name, functions, stubs)
    if path.suffix not in SUFFIXES:
        raise LoadFailed(msg("{file}: expected a .py module, an .ipynb notebook, a folder or a .zip", file=shown(path.name)))
    return _from_bytes(_read_limited(path), path.name, module_name, shown(path.name), functions, _real(path))
