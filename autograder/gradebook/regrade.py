"""What a regrade tells the instructor: every score it changed, and the overrides that still apply to them."""

from __future__ import annotations

from pathlib import Path

from autograder.gradebook.overrides import OverrideBook
from autograder.student_text import clean_name


def changed_lines(changed: list[tuple[str, float, float]], gradebook_path: Path, assignment_id: str) -> list[str]:
    """One line per changed score, ``student: before -> now``, naming the override in force, if any, and its score.

    Parameters
    ----------
    changed : list of (str, float, float)
        ``(student, score before, score now)`` of the batch (:attr:`autograder.batch.runner.BatchSummary.changed`).
    """
    if not changed:
        return []
    with OverrideBook(gradebook_path) as book:
        in_force = book.in_force()
    lines = [f"{len(changed)} scores of {assignment_id} changed (graded score, before -> now):"]
    for student, before, now in sorted(changed):
        line = f"  {clean_name(student)}: {before:g} -> {now:g}"
        for override in in_force.get((student, assignment_id), ()):
            what = f"question {override.question} {override.points:g}" if override.question else f"score {override.points:g}"
            line += f"; override still applies: {what} ({clean_name(override.who)}, {override.at}: {clean_name(override.reason)})"
        lines.append(line)
    return lines
