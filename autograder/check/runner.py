"""Where ``check`` runs the student's code: in the sandbox when it works here, else in a portable child.

On Linux with bubblewrap (or, asked for, Landlock) working, ``check`` runs the public checks
in the sandbox as ``grade`` runs the hidden tests. Anywhere else (macOS, Windows, a Linux
that forbids user namespaces, a kit installed without bubblewrap) it runs them in a portable
child (:mod:`autograder.check.portable`) with the same time limits, and says so in one line;
``ATTN_SANDBOX=portable`` asks for the child everywhere. Grading never comes here: it
refuses without the sandbox (:func:`autograder.sandbox.isolation.choose_isolation`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from autograder.errors import GraderError
from autograder.i18n import Message, msg

if TYPE_CHECKING:
    from autograder.config import Defaults

#: The value of ``ATTN_SANDBOX`` that asks ``check`` for the portable child.
PORTABLE_REQUEST = "portable"


@dataclass(frozen=True)
class CheckRunner:
    """How ``check`` runs the student's code.

    Attributes
    ----------
    isolation : str
        ``bwrap`` or ``none`` (the sandbox), or ``portable``.
    note : Message or None
        The line the report shows about it (None in the sandbox).
    keep : bool
        Keep a healthy portable child for the next submission (the in-notebook check).
    """

    isolation: str
    note: Message | None = None
    keep: bool = False  # keep a healthy portable child for the next submission (the in-notebook check)

    @property
    def portable(self) -> bool:
        return self.note is not None or self.isolation == PORTABLE_REQUEST

    def submission(self, module_name: str, source: str, limits: Defaults, filename: str):
        """The handle that runs the student's functions (a sandboxed worker, or a portable child)."""
        if self.portable:
            from autograder.check.portable import PortableSubmission

            return PortableSubmission(module_name, source, limits, filename, keep_worker=self.keep)
        from autograder.sandbox.client import SandboxedSubmission

        return SandboxedSubmission(module_name, source, limits, filename, isolation=self.isolation)

    def prestart(self, limits: Defaults) -> None:
        """Start the worker of the next run now, so that it warms up while the rest is imported."""
        if self.portable:
            from autograder.check.portable import prestart

            prestart()
            return
        from autograder.sandbox.spares import prestart

        prestart(limits, self.isolation)

    def keep_spares(self) -> None:
        """Have the next run's worker start while the student edits (``check --watch``)."""
        if self.portable:
            from autograder.check.portable import keep_spares

            keep_spares()
            return
        from autograder.sandbox.spares import keep_spares

        keep_spares()


def _portable(reason: Message | str) -> CheckRunner:
    """The portable child, with the one line that says why (what ``check`` prints about it)."""
    from autograder.check.portable import PORTABLE

    return CheckRunner(PORTABLE, msg("No sandbox here ({reason}): your code runs in a plain child process, "
                                     "with the same time limits.", reason=reason))


def check_runner(limits: Defaults) -> CheckRunner:
    """The sandbox when the level asked for works here (Linux only), else the portable child; never refuses."""
    from autograder.sandbox.isolation import ISOLATION_ENV, requested_isolation

    if requested_isolation(limits) == PORTABLE_REQUEST:
        return _portable(f"{ISOLATION_ENV}={PORTABLE_REQUEST}")
    if not sys.platform.startswith("linux"):
        return _portable(msg("bubblewrap runs on Linux only"))
    from autograder.sandbox.isolation import choose_isolation

    try:
        return CheckRunner(str(choose_isolation(limits)))
    except (GraderError, OSError, AttributeError, TypeError):  # no bwrap, no Landlock, no seccomp, no libc
        return _portable(msg("bubblewrap cannot run on this system"))
