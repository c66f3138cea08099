"""What the student should know about how their file was loaded, one line per kind of problem.

Two sources: the notebook extractor (a graded cell that does not parse, named by its
notebook cell) and the worker (top-level statements that raised at import and were
skipped, see :mod:`autograder.sandbox.skipped`). Modules the sandbox lacks are grouped into
one line; other failed statements into another. The import policy's penalty is separate
(:mod:`autograder.grade.static_check`).
"""

from __future__ import annotations

from autograder.i18n import Message, joined, msg, msg_n
from autograder.sandbox.skipped import SkippedStatement

#: Skipped statements listed by line before "and N more".
SHOWN_STATEMENTS = 5


def _lines_list(statements: list[SkippedStatement]) -> str:
    return ", ".join(str(s.line) for s in statements)


def missing_modules_note(skipped: tuple[SkippedStatement, ...]) -> list[Message]:
    """One line naming the modules the grader does not have, with the lines importing them and what followed."""
    missing: dict[str, list[SkippedStatement]] = {}
    for statement in skipped:
        if statement.module:
            missing.setdefault(statement.module, []).append(statement)
    if not missing:
        return []
    named = joined([msg("{module} (line {line})", module=module, line=_lines_list(found)) for module, found in missing.items()])
    following = sum(s.follows for s in skipped)
    if following:
        return [msg_n("Not available when grading: {modules}. These imports and the {n} statement using what they define "
                      "were skipped; your functions were loaded without them.",
                      "Not available when grading: {modules}. These imports and the {n} statements using what they define "
                      "were skipped; your functions were loaded without them.", following, modules=named)]
    return [msg("Not available when grading: {modules}. These imports were skipped; your functions were loaded without them.",
                modules=named)]


def _failed_statement(statement: SkippedStatement) -> Message:
    if statement.message:
        return msg("line {line} ({error}: {message})", line=str(statement.line), error=statement.error, message=statement.message)
    return msg("line {line} ({error})", line=str(statement.line), error=statement.error)


def failed_statements_note(skipped: tuple[SkippedStatement, ...], more: int = 0) -> list[Message]:
    """One line listing the other top-level statements that raised and were skipped (plots, experiments)."""
    failed = [s for s in skipped if not s.module and not s.follows]
    if not failed:
        return []
    shown = joined([_failed_statement(s) for s in failed[:SHOWN_STATEMENTS]])
    extra = len(failed) - SHOWN_STATEMENTS + more
    if extra > 0:
        return [msg("Top-level statements that failed when loading your file were skipped (they are not graded): "
                    "{statements}; and {more} more.", statements=shown, more=str(extra))]
    return [msg("Top-level statements that failed when loading your file were skipped (they are not graded): {statements}.",
                statements=shown)]


def load_notes(extraction_notes: tuple[str, ...], skipped: tuple[SkippedStatement, ...], more: int = 0) -> tuple[str, ...]:
    """Every note, in the order the student meets them: the notebook's, missing modules, failed statements."""
    return (*extraction_notes, *missing_modules_note(skipped), *failed_statements_note(skipped, more))
