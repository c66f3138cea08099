"""Where the project's parts live, relative to the installed source tree."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS_DIR = PROJECT_ROOT / "solutions"
#: Where the student releases are: a copy outside a source checkout (an installed wheel has none) can be
#: named by ATTN_COURSE_RELEASES, so that untouched stubs are still told apart from the file a student changed.
RELEASES_ENV = "ATTN_COURSE_RELEASES"
ASSIGNMENTS_DIR = Path(os.environ.get(RELEASES_ENV) or PROJECT_ROOT / "assignments")
#: The hidden suites of this project's course (course content, beside course.yml, never in the engine's package).
HIDDEN_TESTS_DIR = PROJECT_ROOT / "hidden_tests"
REFERENCE_DIR = PROJECT_ROOT / "attn_reference"
#: The project's own code and masters: a submission is never picked from inside them.
NOT_SUBMISSIONS = (SOLUTIONS_DIR, REFERENCE_DIR, Path(__file__).resolve().parent)

#: Where an installed course bundle keeps its course directory: beside the engine's package, in site-packages.
BUNDLED_COURSE_DIR = PROJECT_ROOT / "attn_course_content"


def default_course_file() -> Path:
    """The checkout's ``course.yml``; in an installed course bundle (no checkout around it), the bundle's own."""
    checkout, bundled = PROJECT_ROOT / "course.yml", BUNDLED_COURSE_DIR / "course.yml"
    return bundled if not checkout.is_file() and bundled.is_file() else checkout


#: File names inside ``solutions/<id>/``.
NOTEBOOK_SOURCE = "notebook.py"
PUBLIC_TESTS_SOURCE = "public_tests.py"


def public_tests_name(module_file: str) -> str:
    """Name of the public test file in a release, e.g. ``test_scaled_attention.py``."""
    return f"test_{module_file}"


def releases_dir_for(course_file: Path | None) -> Path:
    """Where the releases of a course file go: ``assignments/`` beside it (this project's for its own course.yml)."""
    if course_file is None or Path(course_file).resolve() == PROJECT_ROOT / "course.yml":
        return ASSIGNMENTS_DIR
    return Path(course_file).resolve().parent / "assignments"


def solutions_dir_for(course_file: Path | None) -> Path:
    """Where the masters of a course file are: ``solutions/`` beside it when there is one, else this project's."""
    if course_file is not None:
        beside = Path(course_file).resolve().parent / "solutions"
        if beside.is_dir():
            return beside
    return SOLUTIONS_DIR
