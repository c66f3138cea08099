"""The module source of every entry of a class folder, read as the grader reads it (nothing is run)."""

from __future__ import annotations

from pathlib import Path

from autograder.errors import GraderError, SubmissionError

def release_stub(assignment, releases_dir: Path) -> str | None:
    """The release's stub module of ``assignment`` (the starter code every student got), None when not built."""
    path = Path(releases_dir) / assignment.id / assignment.module
    return path.read_text(encoding="utf-8") if path.is_file() else None


def class_sources(course, assignment, folder: Path, releases_dir: Path | None = None) -> dict[str, str]:
    """``{student: module source}`` of the class folder's entries that can be read and parse.

    Each is read by :func:`autograder.grade.run.read_and_parse`, with its bounds (size, time,
    archives); an entry that cannot be read, does not parse or is ambiguous is left out (its
    gradebook row says why).
    """
    from autograder.batch.entries import list_entries
    from autograder.grade.run import read_and_parse
    from autograder.submission.stubs import release_stubs

    releases_dir = course.layout.releases if releases_dir is None else Path(releases_dir)
    stubs = release_stubs(releases_dir / assignment.id, assignment.module, assignment.notebook, assignment.functions)
    sources = {}
    for entry in list_entries(Path(folder)):
        try:
            source, _ = read_and_parse(course, assignment, entry.path, stubs)
        except (GraderError, SubmissionError, OSError):  # unreadable, too large, not Python, ambiguous
            continue
        sources[entry.student] = source.source
    return sources
