"""What the student should know about how their file was loaded, one line per kind of problem.

Two sources: the notebook extractor (a graded cell that does not parse, named by its
notebook cell) and the worker (top-level statements that raised at import and were
skipped, see :mod:`autograder.sandbox.skipped`). Modules the sandbox lacks are grouped into
one line; other failed statements into another. The import policy's penalty is separate
(:mod:`autograder.grade.static_check`).
"""

from __future__ import annotations

from autograder.sandbox.skipped import SkippedStatement

#: Skipped statements listed by line before "and N more".
SHOWN_STATEMENTS = 5


def _lines_list(statements: list[SkippedStatement]) -> str:
    return ", ".join(str(s.line) for s in statements)


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}" if number == 1 else f"{number} {thing}s"


def missing_modules_note(skipped: tuple[SkippedStatement, ...]) -> list[str]:
    """One line naming the modules the grader does not have, with the lines importing them and what followed."""
    missing: dict[str, list[SkippedStatement]] = {}
    for statement in skipped:
        if statement.module:
            missing.setdefault(statement.module, []).append(statement)
    if not missing:
        return []
    named = "; ".join(f"{module} (line {_lines_list(found)})" for module, found in missing.items())
    following = sum(s.follows for s in skipped)
    using = f" and the {_count(following, 'statement')} using what they define" if following else ""
    return [f"Not available when grading: {named}. These imports{using} were skipped; "
            "your functions were loaded without them."]


def failed_statements_note(skipped: tuple[SkippedStatement, ...], more: int = 0) -> list[str]:
    """One line listing the other top-level statements that raised and were skipped (plots, experiments)."""
    failed = [s for s in skipped if not s.module and not s.follows]
    if not failed:
        return []
    shown = "; ".join(f"line {s.line} ({s.error}: {s.message})" if s.message else f"line {s.line} ({s.error})"
                      for s in failed[:SHOWN_STATEMENTS])
    extra = len(failed) - SHOWN_STATEMENTS + more
    suffix = f"; and {extra} more" if extra > 0 else ""
    return [f"Top-level statements that failed when loading your file were skipped (they are not graded): {shown}{suffix}."]


def load_notes(extraction_notes: tuple[str, ...], skipped: tuple[SkippedStatement, ...], more: int = 0) -> tuple[str, ...]:
    """Every note, in the order the student meets them: the notebook's, missing modules, failed statements."""
    return (*extraction_notes, *missing_modules_note(skipped), *failed_statements_note(skipped, more))
