"""The grade's import policy, shown by ``check`` as the loss it will be at grading.

Grading takes ``disallowed_import_penalty`` (course.yml) off the whole score when the source
imports a module outside ``allowed_imports``, reaches one through an allowed module, or uses
code the import check cannot read (:func:`autograder.grade.static_check.policy_violations`).
The public checks run the same analysis on the same source, so a student learns of the loss
before handing in: one line naming each import or construct and its line, and ``check``
exits 1 as for a failed check.
"""

from __future__ import annotations

import ast

from autograder.config import Defaults
from autograder.grade.static_check import OUTSIDE_ALLOWED, ImportViolation, policy_violations
from autograder.i18n import Message, joined, msg, msg_n


def _named(violation: ImportViolation) -> Message:
    if violation.reason == OUTSIDE_ALLOWED:
        return msg("import {module}, line {line}", module=violation.module, line=str(violation.line))
    return msg("{module}, line {line}: {reason}", module=violation.module, line=str(violation.line),
               reason=Message(violation.reason))


def grading_losses(tree: ast.Module | None, limits: Defaults) -> tuple[Message, ...]:
    """The line ``check`` shows for the policy (none when the source keeps to it, or does not parse).

    Parameters
    ----------
    tree : ast.Module or None
        The submission's parsed source.
    limits : Defaults
        The course's ``allowed_imports`` and ``disallowed_import_penalty``.

    Returns
    -------
    tuple of Message
        ``−50 % at grading: import scipy, line 75. ...``, or nothing.
    """
    if tree is None:
        return ()
    violations = policy_violations(tree, limits.allowed_imports)
    if not violations or limits.disallowed_import_penalty <= 0:
        return ()
    return (msg_n("−{percent} % at grading: {violations}. Remove it and check again to keep your points.",
                  "−{percent} % at grading: {violations}. Remove them and check again to keep your points.",
                  len(violations), percent=f"{limits.disallowed_import_penalty * 100:g}",
                  violations=joined([_named(v) for v in violations])),)
