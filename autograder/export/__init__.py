"""Exports of the course to the platforms instructors already use, from one source.

Every export is generated from ``solutions/``, ``course.yml`` and the hidden tests by
``attn-course export TARGET``, never edited by hand. :data:`TARGETS` is the one registry of
export targets (the command line's choices derive from it); each target is a small
:class:`~autograder.export.target.ExportTarget`. On nbgrader and otter, the exported cells
and tests replay this course's hidden tests from data recorded at export time with a
numpy-only checker (:mod:`autograder.export.recorded`, :mod:`autograder.export.kernel_check`):
the grading kernel needs neither ``attn-course`` nor the reference.
"""

from __future__ import annotations

from autograder.export.gradescope import GradescopeTarget
from autograder.export.github import GithubTarget
from autograder.export.nbgrader import NbgraderTarget
from autograder.export.otter import OtterTarget
from autograder.export.target import ExportContext, ExportError, ExportTarget
from autograder.export.write import export_to

#: Every export target, by name: ``attn-course export``'s choices.
TARGETS: dict[str, ExportTarget] = {
    target.name: target for target in (NbgraderTarget(), OtterTarget(), GradescopeTarget(), GithubTarget())
}

__all__ = ["TARGETS", "ExportContext", "ExportError", "ExportTarget", "export_to"]
