"""The written table: answers kept once, grades saved with a version, a stale save refused, a regrade keeps grades."""

from __future__ import annotations

import json

import pytest

from autograder.config import load_course
from autograder.written.batch import answers_payload, store_payload
from autograder.written.extract import Answer
from autograder.gradebook.written import StaleSave, WrittenBook

COURSE = load_course()
ASSIGNMENT = next(a for a in COURSE.assignments if a.written)
QUESTION = ASSIGNMENT.written[0]


def _answers(text: str = "an answer"):
    return [Answer(q.id, text if q is QUESTION else "", q is QUESTION) for q in ASSIGNMENT.written]


def test_answers_are_stored_with_the_unanswered_marked(tmp_path):
    with WrittenBook(tmp_path / "g.sqlite3") as book:
        book.store_answers("ada", ASSIGNMENT.id, _answers())
        rows = {r.question: r for r in book.rows(ASSIGNMENT.id)}
    assert set(rows) == {q.id for q in ASSIGNMENT.written}
    assert [q for q, r in rows.items() if r.answered] == [QUESTION.id]


def test_a_save_on_the_current_version_is_kept_and_a_stale_one_refused(tmp_path):
    path = tmp_path / "g.sqlite3"
    with WrittenBook(path) as first, WrittenBook(path) as second:
        first.store_answers("ada", ASSIGNMENT.id, _answers())
        version = first.row("ada", ASSIGNMENT.id, QUESTION.id).version
        saved = first.save("ada", ASSIGNMENT.id, QUESTION.id, [QUESTION.rubric[0].id], "good", version, "ta1")
        with pytest.raises(StaleSave) as refused:
            second.save("ada", ASSIGNMENT.id, QUESTION.id, [], "overwrite?", version, "ta2")
        assert refused.value.current == saved
        kept = second.row("ada", ASSIGNMENT.id, QUESTION.id)
    assert (kept.items, kept.comment, kept.graded_by, kept.version) == ((QUESTION.rubric[0].id,), "good", "ta1", version + 1)


def test_the_same_answer_again_keeps_the_grade_and_a_changed_one_is_ungraded_again(tmp_path):
    with WrittenBook(tmp_path / "g.sqlite3") as book:
        book.store_answers("ada", ASSIGNMENT.id, _answers())
        row = book.row("ada", ASSIGNMENT.id, QUESTION.id)
        book.save("ada", ASSIGNMENT.id, QUESTION.id, [QUESTION.rubric[0].id], "ok", row.version, "ta")
        book.store_answers("ada", ASSIGNMENT.id, _answers())  # a regrade of the autograded part
        same = book.row("ada", ASSIGNMENT.id, QUESTION.id)
        book.store_answers("ada", ASSIGNMENT.id, _answers("a new answer"))
        changed = book.row("ada", ASSIGNMENT.id, QUESTION.id)
    assert same.graded and same.items == (QUESTION.rubric[0].id,) and same.version == row.version + 1
    assert not changed.graded and changed.items == same.items and changed.version == same.version + 1


def test_the_payload_of_a_grading_process_round_trips_and_junk_is_dropped(tmp_path):
    notebook = tmp_path / ASSIGNMENT.notebook
    cell = {"cell_type": "markdown", "metadata": {"tags": ["written", QUESTION.id]}, "source": ["my ", "answer"]}
    notebook.write_text(json.dumps({"cells": [cell]}), encoding="utf-8")
    payload = json.loads(json.dumps(answers_payload(COURSE, ASSIGNMENT.id, notebook)))
    payload["written"] += [{"question": "not_a_question", "text": "x", "answered": True}, "junk", {"question": QUESTION.id}]
    store_payload(tmp_path / "g.sqlite3", ASSIGNMENT, "ada", payload)
    with WrittenBook(tmp_path / "g.sqlite3") as book:
        rows = {r.question: r for r in book.rows()}
    assert set(rows) == {q.id for q in ASSIGNMENT.written}
    assert rows[QUESTION.id].answer == "my answer"
