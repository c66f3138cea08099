"""The versions of a course bundle: the grader's (pyproject.toml) and the course's (``version:`` in course.yml).

The bundle's distribution version is the grader's, with the course's as its local label
(``0.1.0+2027.1``), so that ``attn-course==0.1.0`` is still satisfied by it; ``attn-course
--version`` shows both, and whether the course is an installed bundle's.
"""

from __future__ import annotations

import json
from pathlib import Path

from autograder import __version__

#: The file of the bundle's course directory that records what was bundled.
BUNDLE_INFO = "bundle.json"


def bundle_version(course_version: str | None, grader_version: str = __version__) -> str:
    """The bundle's distribution version: ``grader+course`` (only the grader's when the course gives none)."""
    return f"{grader_version}+{course_version.lower()}" if course_version else grader_version


def bundle_info(course, grader_version: str = __version__) -> dict:
    """What :data:`BUNDLE_INFO` records: the grader's and the course's versions and the course's name and term."""
    return {"grader_version": grader_version, "course_version": course.version, "course": course.course.name,
            "term": course.course.term, "version": bundle_version(course.version, grader_version)}


def read_bundle_info(course_file: Path) -> dict | None:
    """The :data:`BUNDLE_INFO` beside ``course_file`` (an installed bundle's), or None (a checkout)."""
    try:
        return json.loads((Path(course_file).parent / BUNDLE_INFO).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def version_text(course_file: Path) -> str:
    """``attn-course --version``: the grader's version and the course's, and where the course comes from.

    A course file that cannot be read is said so, never raised: the version of the grader is still shown.
    """
    from autograder.config import load_course
    from autograder.errors import GraderError

    lines = [f"attn-course {__version__} (grader)"]
    try:
        course = load_course(course_file)
    except GraderError as error:
        return "\n".join([*lines, f"course: {error}"])
    info = read_bundle_info(course_file)
    where = f"installed course bundle {info['version']}" if info else str(course_file)
    lines.append(f"course: {course.course.name} ({course.course.term}), version {course.version or '(none)'}, from {where}")
    return "\n".join(lines)
