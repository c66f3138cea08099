"""The demo's written answers on hw1: the sample class answers in ``answers.md``, a demo TA grades three of them.

Everything is derived from course.yml: a full answer says every rubric item's description, a partial
one the first item's, and one answer tries to be markup and a spreadsheet formula (it stays text
everywhere). The review command the instructor would run is printed, and one student's feedback
with a graded written answer is written.
"""

from __future__ import annotations

from pathlib import Path

from autograder.written.cells import ANSWERS_FILE, end_marker, start_marker

#: Who answers how (folders of the sample class holding a module), and who grades the demo's answers.
FULL, PARTIAL, HOSTILE_STUDENT = "ada", "chen", "dana"
DEMO_TA = "demo TA"
HOSTILE_ANSWER = '<script>alert("demo")</script> =HYPERLINK("http://evil.example") [see](javascript:alert(1))'
FEEDBACK_FOLDER = "feedback-written"


def _answer(student: str, question) -> str:
    if student == FULL:
        return "; ".join(item.description["en"] for item in question.rubric) + "."
    if student == PARTIAL:
        return question.rubric[0].description["en"] + "."
    return HOSTILE_ANSWER


def write_sample_answers(course, assignment, class_dir: Path) -> list[str]:
    """The release's ``answers.md``, answered, beside the module of each answering student; the students who answered."""
    from autograder.i18n import render
    from autograder.written.cells import PLACEHOLDER

    release = course.layout.release(assignment.id) / ANSWERS_FILE
    if not assignment.written or not release.is_file():
        return []
    template, placeholder = release.read_text(encoding="utf-8"), render(PLACEHOLDER, "en")
    answered = []
    for student in (s for s in (FULL, PARTIAL, HOSTILE_STUDENT) if (Path(class_dir) / s).is_dir()):
        text = template
        for question in assignment.written:
            blank = f"{start_marker(question.id)}\n{placeholder}\n{end_marker(question.id)}"
            text = text.replace(blank, f"{start_marker(question.id)}\n{_answer(student, question)}\n{end_marker(question.id)}")
        (Path(class_dir) / student / ANSWERS_FILE).write_text(text, encoding="utf-8")
        answered.append(student)
    return answered


def grade_sample_answers(assignment, gradebook_path: Path) -> int:
    """The demo TA's grades: the full answers every item, the partial ones their first, the hostile one none; how many."""
    from autograder.gradebook.written import WrittenBook

    given = {FULL: lambda q: [i.id for i in q.rubric], PARTIAL: lambda q: [q.rubric[0].id], HOSTILE_STUDENT: lambda q: []}
    comments = {FULL: "Complete and precise.", PARTIAL: "Right as far as it goes: say what follows from it.",
                HOSTILE_STUDENT: "Please answer in words."}
    graded = 0
    with WrittenBook(gradebook_path) as book:
        for row in book.rows(assignment.id):
            question = next((q for q in assignment.written if q.id == row.question), None)
            if row.student in given and row.answered and question is not None:
                book.save(row.student, assignment.id, row.question, given[row.student](question), comments[row.student],
                          row.version, DEMO_TA)
                graded += 1
    return graded


def show_written(course, course_file: Path, gradebook_path: Path, out_dir: Path, assignment_id: str) -> list[str]:
    """Grade the demo's answers, write the full answerer's feedback, and say how to review: lines for the terminal."""
    from autograder.gradebook.actions import current_rows
    from autograder.gradebook.export import safe_name, write_feedback

    assignment = course.assignment(assignment_id)
    if not assignment.written:
        return []
    graded = grade_sample_answers(assignment, gradebook_path)
    rows = [r for r in current_rows(gradebook_path, assignment.id, course)[0] if r.student == FULL]
    write_feedback(rows, Path(out_dir) / FEEDBACK_FOLDER)
    page = Path(out_dir) / FEEDBACK_FOLDER / safe_name(FULL) / assignment.id / "feedback.html"
    return [f"written answers: {graded} graded by the {DEMO_TA}; {FULL}'s feedback with a graded written answer: {page}",
            f"review the written answers yourself: attn-course review {assignment.id} --gradebook {gradebook_path} "
            f"--course {course_file}"]
