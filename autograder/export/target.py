"""What every export target is: a small class with one method, like nbgrader's export plugins.

A target writes, for each assignment of the :class:`ExportContext`, the files a platform
needs into an output folder, generated from ``solutions/``, ``course.yml`` and the hidden
tests, never edited by hand. The registry of targets is :data:`autograder.export.TARGETS`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import click

from autograder import __version__
from autograder.config import Course
from autograder.errors import GraderError
from autograder.export.spec import GradingSpec
from autograder.layout import CourseDirectory

#: What CI installs to grade, unless the export is told otherwise (``--package``).
DEFAULT_PACKAGE = f"attn-course=={__version__}"


class ExportError(GraderError):
    """An export cannot be written (a refused output folder, a platform tool that failed)."""


@dataclass(frozen=True)
class ExportContext:
    """Everything a target reads.

    Attributes
    ----------
    course : Course
        course.yml, validated.
    course_file : Path
        Where it was read from (copied into exports that grade outside this checkout).
    assignment_ids : tuple of str
        The assignments to export, in course.yml order.
    seeds : dict
        Seeds given on the command line, by assignment id; the others are
        :func:`~autograder.export.spec.export_seed`'s.
    package : str
        The pip requirement that installs this grader (otter's environment).
    bundle : str or None
        The course bundle's URL or path the GitHub workflows install when the repository sets none.
    language : str or None
        The language of the feedback the exported grading writes (``--lang``; None: course.yml's
        ``feedback_language``).
    options : dict
        The target's other own options, by name (nbgrader's ``exchange_root``).
    """

    course: Course
    course_file: Path
    assignment_ids: tuple[str, ...]
    seeds: dict = field(default_factory=dict)
    package: str = DEFAULT_PACKAGE
    bundle: str | None = None
    language: str | None = None
    options: dict = field(default_factory=dict)

    @property
    def layout(self) -> CourseDirectory:
        """Every path of the exported course (its masters, releases and hidden suites)."""
        return CourseDirectory.of(self.course_file)

    @property
    def feedback_language(self) -> str:
        """The language the exported grading writes feedback in: ``--lang``, else course.yml's ``feedback_language``."""
        return self.language or self.course.feedback_language

    def spec(self, assignment_id: str) -> GradingSpec:
        """The grading spec an export embeds for ``assignment_id``."""
        return GradingSpec.of(self.course, assignment_id, self.seeds.get(assignment_id), self.feedback_language)

    @property
    def assignments(self):
        return [self.course.assignment(i) for i in self.assignment_ids]


#: ``--seed``: the seed the exported hidden tests draw from (nbgrader, otter: their grade cells are fixed at export).
SEED_OPTION = click.Option(
    ["--seed"], type=click.IntRange(min=0), default=None,
    help="The seed the hidden tests draw from (default: a hash of the course name and the assignment id); "
    "`attn-course grade --seed` with it gives the same scores.")
#: ``--package``: the pip requirement CI installs the grader from (GitHub Actions).
PACKAGE_OPTION = click.Option(
    ["--package"], default=None, help="The pip requirement CI installs the grader from (default: this version).")


#: ``--bundle``: the course bundle the GitHub workflows install unless the repository's ATTN_COURSE_BUNDLE names one.
BUNDLE_OPTION = click.Option(
    ["--bundle"], default=None, help="The course bundle's URL or path (`attn-course bundle`; a release asset, say) the "
    "workflows install when the repository sets no ATTN_COURSE_BUNDLE variable or secret (default: none).")


def context_values(assignment_ids: tuple[str, ...], given: dict) -> dict:
    """The :class:`ExportContext` fields set by a target's own options (``seed`` becomes one seed per assignment)."""
    values = {}
    if given.get("seed") is not None:
        values["seeds"] = {i: given["seed"] for i in assignment_ids}
    for name in ("package", "bundle"):
        if given.get(name) is not None:
            values[name] = given[name]
    others = {name: value for name, value in given.items() if name not in ("seed", "package", "bundle") and value is not None}
    if others:
        values["options"] = others
    return values


class ExportTarget(ABC):
    """A platform the course can be exported to.

    Attributes
    ----------
    name : str
        The ``attn-course export`` choice.
    description : str
        One line for ``--help``.
    extra : str or None
        The pip extra whose tools the export (or grading on the platform) needs.
    """

    name: ClassVar[str]
    description: ClassVar[str]
    extra: ClassVar[str | None] = None
    #: The command-line options only this target takes (``attn-course export NAME --help`` lists them);
    #: each sets the :class:`ExportContext` field of its name (see :func:`context_values`).
    options: ClassVar[tuple[click.Option, ...]] = ()

    @abstractmethod
    def export(self, context: ExportContext, out: Path) -> list[Path]:
        """Write the export into the folder ``out`` (it exists and is empty); return the files written.

        Raises
        ------
        ExportError
            When the export cannot be made.
        """
