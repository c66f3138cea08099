"""``attn-course gradebook override``: set a score or a question's points by hand, with a reason.

The command's options are declared in :mod:`autograder.cli`; its work is :func:`main`.
"""

from __future__ import annotations

import getpass
from pathlib import Path

from autograder.errors import GraderError
from autograder.gradebook.overrides import Override, OverrideBook, apply_overrides, now
from autograder.gradebook.store import Gradebook, gradebook_problem
from autograder.student_text import clean_name


class OverrideError(GraderError):
    """An override that cannot be kept as asked (the message says why)."""


def _question(assignment, question: str):
    """The question ``question`` names: its number (1-based) or its function."""
    for number, item in enumerate(assignment.questions, start=1):
        if question in (str(number), item.function):
            return item
    raise OverrideError(f"{assignment.id} has no question {clean_name(question)!r} (its questions are 1 to "
                        f"{len(assignment.questions)}: {', '.join(assignment.functions)})")


def _check(value: float, most: float, what: str) -> None:
    if not 0 <= value <= most:
        raise OverrideError(f"{what} must be between 0 and {most:g}, not {value:g}")


def _current(gradebook_path: Path, student: str, assignment):
    problem = gradebook_problem(gradebook_path) if Path(gradebook_path).exists() else "there is no such file"
    if problem:
        raise OverrideError(f"{gradebook_path} is not a gradebook: {problem}")
    with Gradebook(gradebook_path) as book:
        row = book.current_row(student, assignment.id)
    if row is None:
        raise OverrideError(f"{clean_name(student)} has no row for {assignment.id} in {gradebook_path}: grade the "
                            "submission first")
    with OverrideBook(gradebook_path) as overrides:
        return apply_overrides([row], overrides.in_force())[0]


def main(course, gradebook_path: Path, student: str, assignment_id: str, *, score: float | None = None,
         question: str | None = None, points: float | None = None, reason: str = "", who: str | None = None) -> str:
    """Keep one override and say what changed (one line for the terminal).

    Raises
    ------
    OverrideError
        When the override is not one of ``score`` or ``question`` with ``points``, has no reason,
        is out of range, or names no question or no graded row.
    ConfigError
        When ``assignment_id`` is no assignment of the course.
    """
    assignment = course.assignment(assignment_id)
    if (score is None) == (question is None) or (question is None) != (points is None):
        raise OverrideError("give --score X, or --question N with --points X")
    if not reason.strip():
        raise OverrideError('give a --reason: it is kept with the override (e.g. --reason "regrade request #12")')
    row = _current(gradebook_path, student, assignment)
    item = _question(assignment, question) if question is not None else None
    if item is not None:
        _check(points, item.points, f"the points of {item.function}")
        from autograder.gradebook.details import question_scores

        previous, value = question_scores(row).get(item.function, 0.0), points
    else:
        _check(score, assignment.max_points, f"the score of {assignment.id}")
        previous, value = row.score, score
    kept = Override(row.student, assignment.id, item.function if item else None, float(value), float(previous),
                    reason.strip(), (who or getpass.getuser()).strip(), now())
    with OverrideBook(gradebook_path) as overrides:
        overrides.add(kept)
    what = f"question {item.function}" if item else "score"
    return f"{clean_name(row.student)} {assignment.id} {what}: {previous:g} -> {value:g} ({kept.who}, {kept.at}: {clean_name(kept.reason)})"
