"""Each written answer read from a submission: its answer cell, or its place in ``answers.md``; unanswered ones marked.

Only bytes are read and parsed (the limits of :mod:`autograder.submission.locate`); nothing of the
submission runs. The files looked at are the assignment's notebooks (in any language of the release)
and ``answers.md`` files (``answers.zh.md`` too), shallowest first; a question's answer is the first
of them that answers it. A file that cannot be read answers nothing (and says why in ``problems``).
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from autograder.errors import LoadFailed
from autograder.languages import file_names_in_every_language
from autograder.student_text import clean_text
from autograder.submission.locate import MAX_ZIP_MEMBERS, _hidden, _member_reader, _read_limited
from autograder.submission.notebook_code import _cell_source, _cell_tags
from autograder.written.cells import ANSWERS_FILE, WRITTEN_TAG, end_marker, placeholder_texts, start_marker

#: Longest answer kept, in characters; the rest is cut (and the answer says so).
MAX_ANSWER_CHARS = 20_000
CUT_MARK = "\n[…]"


@dataclass(frozen=True)
class Answer:
    """One question's answer as read (``text`` empty and ``answered`` False when there is none)."""

    question: str
    text: str
    answered: bool
    source: str = ""  # the file it was read from


def _kept(text: str, placeholders: set[str]) -> tuple[str, bool]:
    text = clean_text(text).strip()
    if len(text) > MAX_ANSWER_CHARS:
        text = text[:MAX_ANSWER_CHARS] + CUT_MARK
    return text, bool(text) and text not in placeholders


def notebook_answers(notebook_text: str, ids, placeholders: set[str]) -> dict[str, str]:
    """``{question id: answer}`` of the answer cells of a notebook (the first cell of each id; unanswered left out)."""
    try:
        cells = json.loads(notebook_text).get("cells")
    except (ValueError, AttributeError):
        return {}
    found: dict[str, str] = {}
    for cell in cells if isinstance(cells, list) else []:
        tags = _cell_tags(cell) if isinstance(cell, dict) else ()
        if len(tags) > 1 and tags[0] == WRITTEN_TAG and tags[1] in ids and tags[1] not in found:
            text, answered = _kept(_cell_source(cell), placeholders)
            found[tags[1]] = text if answered else ""
    return {k: v for k, v in found.items() if v}


def markdown_answers(text: str, ids, placeholders: set[str]) -> dict[str, str]:
    """``{question id: answer}`` between the marker lines of an ``answers.md`` (unanswered left out)."""
    found = {}
    for question in ids:
        start = text.find(start_marker(question))
        if start < 0:
            continue
        start += len(start_marker(question))
        end = text.find(end_marker(question), start)
        answer, answered = _kept(text[start:] if end < 0 else text[start:end], placeholders)
        if answered:
            found[question] = answer
    return found


def _candidates(names: list[str], notebook_file: str) -> list[str]:
    wanted = set(file_names_in_every_language(notebook_file)) | set(file_names_in_every_language(ANSWERS_FILE))
    chosen = [n for n in names if PurePosixPath(n).name in wanted and not _hidden(PurePosixPath(n))]
    return sorted(chosen, key=lambda n: (len(PurePosixPath(n).parts), not n.endswith(".ipynb"), n))


def _files(path: Path, notebook_file: str):
    """``(name, read)`` of the submission's notebook and answers files, in the order they are asked."""
    if path.is_dir():
        names = [p.relative_to(path).as_posix() for p in sorted(path.rglob("*")) if p.is_file() and not p.is_symlink()]
        return [(name, lambda n=name: _read_limited(path / n)) for name in _candidates(names, notebook_file)]
    if path.suffix == ".zip":
        archive = zipfile.ZipFile(io.BytesIO(_read_limited(path)))
        members = {m.filename: m for m in archive.infolist()[: MAX_ZIP_MEMBERS + 1] if not m.is_dir()}
        if len(members) > MAX_ZIP_MEMBERS:
            raise LoadFailed(f"{path.name} holds more than {MAX_ZIP_MEMBERS} files")
        read = _member_reader(archive, members, path.name)
        return [(name, lambda n=name: read(n)) for name in _candidates(sorted(members), notebook_file)]
    return [(path.name, lambda: _read_limited(path))] if path.suffix == ".ipynb" else []


def read_answers(assignment, path: Path, languages) -> tuple[list[Answer], list[str]]:
    """Every written question's answer in the submission at ``path``, in question order, and what could not be read.

    Parameters
    ----------
    assignment : autograder.config.Assignment
        Its ``written`` questions are looked for.
    path : Path
        The submission: a notebook, a module (which answers nothing), a folder or a zip.
    languages : sequence of str
        The course's languages (an answer still holding the placeholder of any of them is unanswered).
    """
    ids, placeholders = [q.id for q in assignment.written], placeholder_texts(languages)
    found: dict[str, tuple[str, str]] = {}
    problems = []
    try:
        files = _files(Path(path), assignment.notebook)
    except (OSError, LoadFailed, zipfile.BadZipFile) as error:
        files, problems = [], [clean_text(error)]
    for name, read in files:
        try:
            text = read().decode("utf-8", errors="replace")
        except (OSError, LoadFailed) as error:
            problems.append(clean_text(error))
            continue
        answers = notebook_answers(text, ids, placeholders) if name.endswith(".ipynb") else markdown_answers(text, ids, placeholders)
        for question, answer in answers.items():
            found.setdefault(question, (answer, name))
    return [Answer(q, found[q][0], True, found[q][1]) if q in found else Answer(q, "", False) for q in ids], problems
