"""A batch keeps every submission's written answers beside its row: a notebook's cells, answers.md beside a module,
none for a module alone (unanswered); a regrade keeps a TA's grade of an unchanged answer."""

from __future__ import annotations

import json

import pytest

from autograder.batch.runner import grade_batch
from autograder.build.markers import keep_solutions
from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.gradebook.written import WrittenBook
from autograder.written.cells import ANSWERS_FILE, WRITTEN_TAG, end_marker, start_marker

pytestmark = pytest.mark.slow
COURSE = load_course(DEFAULT_COURSE_FILE)
ASSIGNMENT = next(a for a in COURSE.assignments if a.written)
FIRST, SECOND = ASSIGNMENT.written[0], ASSIGNMENT.written[1]


def _class(folder):
    release = COURSE.layout.release(ASSIGNMENT.id)
    solution = keep_solutions((COURSE.layout.masters(ASSIGNMENT.id) / ASSIGNMENT.module).read_text(encoding="utf-8"))
    notebook = json.loads((release / ASSIGNMENT.notebook).read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["metadata"].get("tags", [])[:2] == [WRITTEN_TAG, FIRST.id]:
            cell["source"] = "In the notebook: the variance grows with d_k."
    (folder / "nina.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    (folder / "mo").mkdir()
    (folder / "mo" / ASSIGNMENT.module).write_text(solution, encoding="utf-8")
    answers = (release / ANSWERS_FILE).read_text(encoding="utf-8")
    start = answers.index(start_marker(SECOND.id)) + len(start_marker(SECOND.id))
    answers = answers[:start] + "\nBeside the module: keys match, values return.\n" + answers[answers.index(end_marker(SECOND.id)):]
    (folder / "mo" / ANSWERS_FILE).write_text(answers, encoding="utf-8")
    (folder / "solo.py").write_text(solution, encoding="utf-8")


def _answers(path):
    with WrittenBook(path) as book:
        return {(r.student, r.question): r for r in book.rows(ASSIGNMENT.id)}


def test_a_batch_keeps_each_submissions_answers_and_a_regrade_keeps_the_grades(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    _class(folder)
    book = tmp_path / "gradebook.sqlite3"
    grade_batch(DEFAULT_COURSE_FILE, COURSE, ASSIGNMENT.id, folder, book, jobs=2)
    found = _answers(book)
    answered = {key for key, row in found.items() if row.answered}
    assert answered == {("nina", FIRST.id), ("mo", SECOND.id)}
    assert len(found) == 3 * len(ASSIGNMENT.written)  # every student, every question: the rest marked unanswered
    assert found[("mo", SECOND.id)].answer == "Beside the module: keys match, values return."
    row = found[("nina", FIRST.id)]
    with WrittenBook(book) as written:
        written.save("nina", ASSIGNMENT.id, FIRST.id, [FIRST.rubric[0].id], "good", row.version, "ta")
    grade_batch(DEFAULT_COURSE_FILE, COURSE, ASSIGNMENT.id, folder, book, jobs=2, regrade=True)
    kept = _answers(book)[("nina", FIRST.id)]
    assert kept.graded and kept.items == (FIRST.rubric[0].id,) and kept.comment == "good"
