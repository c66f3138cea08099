"""What the review page shows, apart from the web: the answers of a question in a fixed anonymous order.

Answers are ordered by a digest of assignment, question and student (the same order every run, so
a reload or a second TA meets the same sequence; never alphabetical, so the order gives no one
away) and known to the page by a key derived the same way: the student's id reaches the page
only when the TA asks for it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from autograder.gradebook.written import WrittenBook, WrittenRow

#: Longest comment a TA may save, in characters.
MAX_COMMENT_CHARS = 5000


def answer_key(assignment: str, question: str, student: str) -> str:
    """The key the page knows an answer by: it names the answer, not the student."""
    return hashlib.sha256(f"{assignment}\0{question}\0{student}".encode("utf-8")).hexdigest()[:20]


@dataclass(frozen=True)
class Place:
    """One answer in its question's sequence: the row, its position (1-based), the whole count, its neighbours' keys."""

    row: WrittenRow
    key: str
    position: int
    total: int
    previous: str | None
    next: str | None


class Review:
    """The review of one assignment's written answers in a gradebook file."""

    def __init__(self, course, assignment_id: str, gradebook_path: Path, who: str):
        self.course = course
        self.assignment = course.assignment(assignment_id)
        self.book = WrittenBook(gradebook_path)
        self.who = who
        self._keys: dict[tuple[str, str], str] = {}

    def close(self) -> None:
        self.book.__exit__()

    def question(self, question_id: str):
        """The written question with this id, or None."""
        return next((q for q in self.assignment.written if q.id == question_id), None)

    def _key(self, question_id: str, student: str) -> str:
        found = self._keys.get((question_id, student))
        if found is None:
            found = self._keys[(question_id, student)] = answer_key(self.assignment.id, question_id, student)
        return found

    def ordered(self, question_id: str) -> list[tuple[str, str, bool]]:
        """``(key, student, graded)`` of every answer to the question, in the review's order."""
        keyed = [(self._key(question_id, student), student, graded)
                 for student, graded in self.book.graded_flags(self.assignment.id, question_id)]
        return sorted(keyed)

    def progress(self) -> list[tuple[object, int, int]]:
        """``(question, graded, answers)`` of every written question, in course order."""
        counts = self.book.progress(self.assignment.id)
        return [(q, *counts.get(q.id, (0, 0))) for q in self.assignment.written]

    def place(self, question_id: str, key: str | None, ungraded: bool) -> Place | None:
        """The answer ``key`` (the first one shown when None) and its neighbours under the filter; None when none fits."""
        ordered = self.ordered(question_id)
        keys = [k for k, _, _ in ordered]
        shown = [k for k, _, graded in ordered if not ungraded or not graded or k == key]
        if key is None:
            shown = [k for k, _, graded in ordered if not ungraded or not graded]
            if not shown:
                return None
            key = shown[0]
        if key not in keys:
            return None
        at, position = shown.index(key), keys.index(key)
        row = self.book.row(ordered[position][1], self.assignment.id, question_id)
        return Place(row, key, position + 1, len(keys), shown[at - 1] if at > 0 else None,
                     shown[at + 1] if at + 1 < len(shown) else None)

    def student_of(self, question_id: str, key: str) -> str | None:
        """The student whose answer ``key`` is (None for an unknown key)."""
        return next((student for k, student, _ in self.ordered(question_id) if k == key), None)

    def save(self, question_id: str, key: str, items, comment: str, version: int) -> WrittenRow:
        """Keep the TA's grade of answer ``key`` (see :meth:`~autograder.gradebook.written.WrittenBook.save`).

        Raises
        ------
        ValueError
            When the question, the key or an item is unknown, or the comment is too long.
        StaleSave
            When the answer moved past ``version`` meanwhile.
        """
        question = self.question(question_id)
        student = self.student_of(question_id, key) if question else None
        if student is None:
            raise ValueError("unknown answer")
        if any(question.item(i) is None for i in items) or len(comment) > MAX_COMMENT_CHARS:
            raise ValueError("unknown rubric item or comment too long")
        return self.book.save(student, self.assignment.id, question_id, items, comment, version, self.who)
