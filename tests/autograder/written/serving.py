"""A gradebook of written answers and a review server on a thread, for the review tests (facts from course.yml)."""

from __future__ import annotations

from pathlib import Path

from autograder.config import load_course
from autograder.gradebook.store import Gradebook
from autograder.written.extract import Answer
from autograder.written.review import answer_key
from autograder.gradebook.written import WrittenBook

COURSE = load_course()
ASSIGNMENT = next(a for a in COURSE.assignments if a.written)
#: A student answer that tries to become markup and script, a link and a formula.
HOSTILE = ('<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"><b>bold</b> '
           '[click](javascript:alert(1)) =cmd|"/c calc"!A1 </pre></main>')


def honest(student: str, question: str) -> str:
    return f"On {question}: the variance of q·k grows with d_k, so the scores need scaling."


def seed(path: Path, students: list[str], hostile: dict[tuple[str, str], str] | None = None) -> Path:
    """A gradebook at ``path`` whose ``students`` answered every written question (``hostile`` replaces some answers)."""
    Gradebook(path).close()
    with WrittenBook(path) as book:
        for student in students:
            book.store_answers(student, ASSIGNMENT.id, [
                Answer(q.id, (hostile or {}).get((student, q.id), honest(student, q.id)), True, "test")
                for q in ASSIGNMENT.written])
    return path


def key(student: str, question: str) -> str:
    return answer_key(ASSIGNMENT.id, question, student)


def rows(path: Path, question: str) -> dict:
    with WrittenBook(path) as book:
        return {r.student: r for r in book.rows(ASSIGNMENT.id, question)}
