"""Where every part of a course lives: one object, built from the course file, passed to every command.

A course is a directory: its ``course.yml``, the instructor's masters in ``solutions/``, the
generated releases in ``assignments/``, its hidden suites in ``hidden_tests/``, its known mistakes and
diagnosis facts in ``mistakes/`` and its secret ``.course_secret``, all beside the course file.
:class:`CourseDirectory` knows each of those
paths (nbgrader's ``CourseDirectory`` is the model); build, check, grade, export and the demo
ask it, so that a course given by ``--course other/course.yml`` is that course's files
everywhere, never this project's.

The engine's package holds no course content: an installed engine reads the course it is given
(the Gradescope zip and the course bundle carry the course directory beside the engine). An installed
course bundle (``attn-course bundle``) keeps its course in site-packages (:data:`~autograder.paths.BUNDLED_COURSE_DIR`),
which is the default course there.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from autograder import paths
from autograder.errors import ConfigError
from autograder.paths import NOTEBOOK_SOURCE, PROJECT_ROOT, PUBLIC_TESTS_SOURCE

#: The project's own course file.
PROJECT_COURSE_FILE = PROJECT_ROOT / "course.yml"
#: Folder names inside a course directory.
SOLUTIONS = "solutions"
RELEASES = "assignments"
HIDDEN_TESTS = "hidden_tests"
MISTAKES = "mistakes"
GLOSSARY = "glossary.yml"


@dataclass(frozen=True)
class CourseDirectory:
    """Every path of one course.

    Attributes
    ----------
    course_file : Path
        The course's ``course.yml`` (resolved).
    solutions : Path
        The instructor's masters, one folder per assignment.
    releases : Path
        The generated student releases, one folder per assignment.
    hidden_tests : Path
        The hidden suites, one folder per assignment.
    reference : Path
        The reference package (the oracle) the hidden suites compare with: this project's, or the course's own
        ``attn_reference/`` in a copy of the project's checkout.
    mistakes : Path
        The course's known mistakes (wrong versions of its graded functions) and the hints of its bugs, Python
        modules read by :mod:`autograder.mistakes`.
    """

    course_file: Path
    solutions: Path
    releases: Path
    hidden_tests: Path
    reference: Path
    mistakes: Path | None = None

    def __post_init__(self):
        if self.mistakes is None:  # a layout built by hand: the mistakes beside its course file
            object.__setattr__(self, "mistakes", self.course_file.parent / MISTAKES)

    @classmethod
    def of(cls, course_file: Path | str | None = None) -> "CourseDirectory":
        """The layout of the course whose file is ``course_file`` (None: this project's course)."""
        path = PROJECT_COURSE_FILE if course_file is None else Path(course_file).resolve()
        if path == PROJECT_COURSE_FILE.resolve():
            return cls(path, paths.SOLUTIONS_DIR, paths.ASSIGNMENTS_DIR, paths.HIDDEN_TESTS_DIR, paths.REFERENCE_DIR,
                       PROJECT_ROOT / MISTAKES)
        root = path.parent
        own_reference = root / paths.REFERENCE_DIR.name  # a copy of this project's checkout has its own
        return cls(path, root / SOLUTIONS, root / RELEASES, root / HIDDEN_TESTS,
                   own_reference if own_reference.is_dir() else paths.REFERENCE_DIR, root / MISTAKES)

    @property
    def root(self) -> Path:
        """The course directory: the folder of its course file."""
        return self.course_file.parent

    @property
    def is_project_course(self) -> bool:
        """Whether this is the project's own course (the ``course.yml`` of this checkout)."""
        return self.course_file == PROJECT_COURSE_FILE.resolve()

    @property
    def is_installed_bundle(self) -> bool:
        """Whether this is the course of an installed course bundle (``attn_course_content/`` in site-packages)."""
        return self.root == paths.BUNDLED_COURSE_DIR.resolve()

    @property
    def glossary(self) -> Path:
        """The course's glossary of translated terms."""
        return self.solutions / GLOSSARY

    def masters(self, assignment_id: str) -> Path:
        """The folder of one assignment's masters.

        Raises
        ------
        ConfigError
            When the course has no such folder.
        """
        folder = self.solutions / assignment_id
        if not folder.is_dir():
            raise ConfigError(f"no masters for {assignment_id}: {folder} is missing (next to {self.course_file.name})")
        return folder

    def master(self, assignment) -> Path:
        """The solution module of an assignment (``solutions/<id>/<module>``)."""
        return self.masters(assignment.id) / assignment.module

    def notebook_source(self, assignment_id: str) -> Path:
        """The notebook source of an assignment (``solutions/<id>/notebook.py``)."""
        return self.masters(assignment_id) / NOTEBOOK_SOURCE

    def public_tests_source(self, assignment_id: str) -> Path:
        """The public tests' source of an assignment (``solutions/<id>/public_tests.py``)."""
        return self.masters(assignment_id) / PUBLIC_TESTS_SOURCE

    def release(self, assignment_id: str) -> Path:
        """The folder of one assignment's generated release."""
        return self.releases / assignment_id

    def hidden_suite(self, assignment_id: str) -> Path:
        """The folder of one assignment's hidden suite."""
        return self.hidden_tests / assignment_id


def default_layout() -> CourseDirectory:
    """The layout of the default course: the checkout's ``course.yml``, or an installed course bundle's."""
    return CourseDirectory.of(paths.default_course_file())
