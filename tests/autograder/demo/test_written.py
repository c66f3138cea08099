"""The demo's written answers: the sample class's answers.md read back, the demo TA's grades, a feedback page showing one."""

from __future__ import annotations

from autograder.config import load_course
from autograder.demo.written import FULL, HOSTILE, HOSTILE_ANSWER, PARTIAL, answerers, show_written, write_sample_answers
from autograder.gradebook.store import Gradebook
from autograder.gradebook.written import WrittenBook
from autograder.written.extract import read_answers
from tests.autograder.gradebook.rows import a_test, graded_row

COURSE = load_course()
ASSIGNMENT = next(a for a in COURSE.assignments if a.written)
#: Who answers how, from the course's sample class (solutions/sample_class.yml).
ANSWERING = answerers(COURSE)
FULL_STUDENT, PARTIAL_STUDENT, HOSTILE_STUDENT = ANSWERING[FULL], ANSWERING[PARTIAL], ANSWERING[HOSTILE]


def test_the_sample_answers_are_read_back_and_one_feedback_page_shows_a_graded_written_answer(tmp_path):
    class_dir = tmp_path / "class" / ASSIGNMENT.id
    for student in (FULL_STUDENT, PARTIAL_STUDENT, HOSTILE_STUDENT, "ben"):
        (class_dir / student).mkdir(parents=True)
        (class_dir / student / ASSIGNMENT.module).write_text("x = 1\n")
    assert write_sample_answers(COURSE, ASSIGNMENT, class_dir) == [FULL_STUDENT, PARTIAL_STUDENT, HOSTILE_STUDENT]
    book = tmp_path / "gradebook.sqlite3"
    q = ASSIGNMENT.questions[0]
    with Gradebook(book) as rows, WrittenBook(book) as written:
        for student in (FULL_STUDENT, PARTIAL_STUDENT, HOSTILE_STUDENT, "ben"):
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


def test_the_answering_students_are_the_sample_classs_and_a_class_naming_none_answers_nothing(tmp_path):
    from types import SimpleNamespace

    import yaml

    from autograder.demo.sample_class import SAMPLE_CLASS_FILE
    from autograder.layout import CourseDirectory

    named = yaml.safe_load((COURSE.layout.solutions / SAMPLE_CLASS_FILE).read_text(encoding="utf-8"))["written"]
    assert ANSWERING == {role: named[role] for role in (FULL, PARTIAL, HOSTILE)}
    (tmp_path / SAMPLE_CLASS_FILE).write_text("showcase: {student: x, assignment: y}\n", encoding="utf-8")
    layout = CourseDirectory(COURSE.layout.course_file, tmp_path, COURSE.layout.releases, COURSE.layout.hidden_tests,
                             COURSE.layout.reference)
    assert answerers(SimpleNamespace(layout=layout)) == {}
