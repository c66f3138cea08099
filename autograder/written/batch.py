"""Written answers in a batch: the grading process reads them with the submission, the batch keeps them.

The grading process (:mod:`autograder.batch.worker`, trusted code) adds ``written`` to its JSON answer:
one ``{question, text, answered, source}`` per written question. The batch stores them in the
gradebook's ``written`` table beside the row (:mod:`autograder.gradebook.written`).
"""

from __future__ import annotations

from pathlib import Path

from autograder.written.extract import Answer, read_answers

#: The key of a grading process's answer that holds the written answers.
WRITTEN_KEY = "written"


def answers_payload(course, assignment_id: str, path: Path) -> dict:
    """``{"written": [...]}`` for the submission at ``path`` (empty when the assignment has no written questions)."""
    assignment = course.assignment(assignment_id)
    if not assignment.written:
        return {}
    answers, _ = read_answers(assignment, path, course.languages)
    return {WRITTEN_KEY: [answer.__dict__ for answer in answers]}


def _answers(items, question_ids: set[str]) -> list[Answer]:
    """The well-formed answers of a payload, of known questions only."""
    kept = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and item.get("question") in question_ids and isinstance(item.get("text"), str):
            kept.append(Answer(item["question"], item["text"], bool(item.get("answered")), str(item.get("source") or "")))
    return kept


def store_payload(gradebook_path: Path, assignment, student: str, answer: dict | None) -> None:
    """Keep the written answers a grading process sent for ``student`` (nothing when it sent none)."""
    if not assignment.written or not isinstance(answer, dict) or WRITTEN_KEY not in answer:
        return
    from autograder.gradebook.written import WrittenBook

    answers = _answers(answer[WRITTEN_KEY], {q.id for q in assignment.written})
    with WrittenBook(gradebook_path) as book:
        book.store_answers(student, assignment.id, answers)
