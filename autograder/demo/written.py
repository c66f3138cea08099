"""The demo's written answers on hw1: the sample class answers in ``answers.md``, a demo TA grades three of them.

Everything is derived from course.yml and the sample class (``written`` of ``solutions/sample_class.yml``
says who answers how): a full answer says every rubric item's description, a partial one the first
item's, and one answer tries to be markup and a spreadsheet formula (it stays text everywhere). The review command the instructor would run is printed, and one student's feedback
with a graded written answer is written.
"""

from __future__ import annotations

from pathlib import Path

from autograder.written.cells import ANSWERS_FILE, end_marker, start_marker

#: The ways of answering (roles of the sample class's ``written``), in the order the students answer.
FULL, PARTIAL, HOSTILE = "full", "partial", "hostile"
ROLES = (FULL, PARTIAL, HOSTILE)
#: Who grades the demo's answers.
DEMO_TA = "demo TA"
HOSTILE_ANSWER = '<script>alert("demo")</script> =HYPERLINK("http://evil.example") [see](javascript:alert(1))'
FEEDBACK_FOLDER = "feedback-written"


def answerers(course) -> dict[str, str]:
    """Role -> student of the course's sample class who answers that way (none when it names nobody)."""
    from autograder.demo.sample_class import sample_class

    named = sample_class(course.layout).written
    return {role: named[role] for role in ROLES if role in named}


def _answer(role: str, question) -> str:
    if role == FULL:
        return "; ".join(item.description["en"] for item in question.rubric) + "."
    if role == PARTIAL:
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
    for role, student in answerers(course).items():
        if not (Path(class_dir) / student).is_dir():
            continue
        text = template
        for question in assignment.written:
            blank = f"{start_marker(question.id)}\n{placeholder}\n{end_marker(question.id)}"
            text = text.replace(blank, f"{start_marker(question.id)}\n{_answer(role, question)}\n{end_marker(question.id)}")
        (Path(class_dir) / student / ANSWERS_FILE).write_text(text, encoding="utf-8")
        answered.append(student)
    return answered


def grade_sample_answers(course, assignment, gradebook_path: Path) -> int:
    """The demo TA's grades: the full answers every item, the partial ones their first, the hostile one none; how many."""
    from autograder.gradebook.written import WrittenBook

    given = {FULL: lambda q: [i.id for i in q.rubric], PARTIAL: lambda q: [q.rubric[0].id], HOSTILE: lambda q: []}
    comments = {FULL: "Complete and precise.", PARTIAL: "Right as far as it goes: say what follows from it.",
                HOSTILE: "Please answer in words."}
    role_of = {student: role for role, student in answerers(course).items()}
    graded = 0
    with WrittenBook(gradebook_path) as book:
        for row in book.rows(assignment.id):
            question = next((q for q in assignment.written if q.id == row.question), None)
            role = role_of.get(row.student)
            if role is not None and row.answered and question is not None:
                book.save(row.student, assignment.id, row.question, given[role](question), comments[role], row.version,
                          DEMO_TA)
                graded += 1
    return graded


def show_written(course, course_file: Path, gradebook_path: Path, out_dir: Path, assignment_id: str) -> list[str]:
    """Grade the demo's answers, write the full answerer's feedback, and say how to review: lines for the terminal."""
    from autograder.gradebook.actions import current_rows
    from autograder.gradebook.export import safe_name, write_feedback

    assignment = course.assignment(assignment_id)
    if not assignment.written:
        return []
    graded = grade_sample_answers(course, assignment, gradebook_path)
    full = answerers(course).get(FULL)
    rows = [r for r in current_rows(gradebook_path, assignment.id, course)[0] if r.student == full]
    write_feedback(rows, Path(out_dir) / FEEDBACK_FOLDER)
    page = Path(out_dir) / FEEDBACK_FOLDER / safe_name(full or "") / assignment.id / "feedback.html"
    return [f"written answers: {graded} graded by the {DEMO_TA}; {full}'s feedback with a graded written answer: {page}",
            f"review the written answers yourself: attn-course review {assignment.id} --gradebook {gradebook_path} "
            f"--course {course_file}"]
