"""The demo's written answers: the sample class's answers.md read back, the demo TA's grades, a feedback page showing one."""

from __future__ import annotations

from autograder.config import load_course
from autograder.demo.written import FULL, HOSTILE_ANSWER, HOSTILE_STUDENT, PARTIAL, show_written, write_sample_answers
from autograder.gradebook.store import Gradebook
from autograder.gradebook.written import WrittenBook
from autograder.written.extract import read_answers
from tests.autograder.gradebook.rows import a_test, graded_row

COURSE = load_course()
ASSIGNMENT = next(a for a in COURSE.assignments if a.written)


def test_the_sample_answers_are_read_back_and_one_feedback_page_shows_a_graded_written_answer(tmp_path):
    class_dir = tmp_path / "class" / ASSIGNMENT.id
    for student in (FULL, PARTIAL, HOSTILE_STUDENT, "ben"):
        (class_dir / student).mkdir(parents=True)
        (class_dir / student / ASSIGNMENT.module).write_text("x = 1\n")
    assert write_sample_answers(COURSE, ASSIGNMENT, class_dir) == [FULL, PARTIAL, HOSTILE_STUDENT]
    book = tmp_path / "gradebook.sqlite3"
    q = ASSIGNMENT.questions[0]
    with Gradebook(book) as rows, WrittenBook(book) as written:
        for student in (FULL, PARTIAL, HOSTILE_STUDENT, "ben"):
            rows.record(graded_row(student, [(q.function, q.points, q.points, [a_test(q.function, True)])],
                                   assignment=ASSIGNMENT.id))
            answers, problems = read_answers(ASSIGNMENT, class_dir / student, COURSE.languages)
            assert not problems and all(a.answered for a in answers) == (student != "ben")
            written.store_answers(student, ASSIGNMENT.id, answers)
        assert written.row(HOSTILE_STUDENT, ASSIGNMENT.id, ASSIGNMENT.written[0].id).answer == HOSTILE_ANSWER
    lines = show_written(COURSE, tmp_path / "course.yml", book, tmp_path, ASSIGNMENT.id)
    assert any(f"attn-course review {ASSIGNMENT.id} --gradebook {book}" in line for line in lines)
    page = lines[0].rsplit(": ", 1)[1]
    text = open(page, encoding="utf-8").read()
    full = sum(question.points for question in ASSIGNMENT.written)
    assert all(item.description["en"] in text for question in ASSIGNMENT.written for item in question.rubric)
    assert all(f"{question.points:g} of {question.points:g} points" in text for question in ASSIGNMENT.written)
    assert f"{q.points + full:g} of {q.points + full:g} points" in text  # the total, autograded part and written
    with WrittenBook(book) as written:
        assert not any(r.graded for r in written.rows() if r.student == "ben")
