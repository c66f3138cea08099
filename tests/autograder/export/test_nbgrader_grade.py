"""Our engine on nbgrader's submissions, with the real nbgrader: gradebook.db and feedback/ hold ``attn-course grade``'s results.

One ``nbgrader generate_assignment`` (it puts the assignment's cells in gradebook.db), then
``attn-course nbgrader-grade`` on three submissions: the solution, the solution handed in days
late (nbgrader's ``timestamp.txt``), and the one-line reference import. Their scores do not depend
on the drawn inputs, so ``attn-course grade`` run on its own gives the same ones.
"""

import datetime as dt
import json
import shutil

import pytest
from click.testing import CliRunner

from autograder.cli import main
from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.export import TARGETS, ExportContext, agreement, export_to
from autograder.export.corpus import SOLUTION, corpus, with_reference_import
from autograder.grade.api import grade_submission
from autograder.grade.late import late_fraction
from autograder.gradebook import extensions
from autograder.report.text import to_json

pytestmark = [pytest.mark.slow, pytest.mark.longest]
pytest.importorskip("nbgrader")

COURSE = load_course()
ASSIGNMENT = COURSE.assignments[0]
DAYS_LATE = 2


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    work = tmp_path_factory.mktemp("nbgrader-grade")
    context = ExportContext(COURSE, DEFAULT_COURSE_FILE, (ASSIGNMENT.id,))
    course_dir = work / "course"
    export_to(TARGETS["nbgrader"], context, course_dir)
    agreement.nbgrader_release(course_dir, ASSIGNMENT.id)
    solution = next(e for e in corpus(COURSE, ASSIGNMENT.id, context.spec(ASSIGNMENT.id), buggy=0, attack=False)
                    if e.kind == SOLUTION).notebook
    notebooks = {"ada": solution, "late": solution, "extended": solution,
                 "trudy": with_reference_import(solution, ASSIGNMENT.functions[0])}
    for student, text in notebooks.items():
        folder = course_dir / "submitted" / student / ASSIGNMENT.id
        folder.mkdir(parents=True)
        (folder / ASSIGNMENT.notebook).write_text(text, encoding="utf-8")
    late_at = ASSIGNMENT.due + dt.timedelta(days=DAYS_LATE - 1, hours=12)
    for student in ("late", "extended"):
        (course_dir / "submitted" / student / ASSIGNMENT.id / "timestamp.txt").write_text(
            late_at.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f UTC"), encoding="utf-8")
    table = work / "extensions.csv"  # "extended" has DAYS_LATE more days: on time
    table.write_text(f"student,assignment,extra_days,reason\nextended,{ASSIGNMENT.id},{DAYS_LATE},illness\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(extensions, "course_extensions", lambda course, course_file: extensions.read_extensions(table, course))
        done = CliRunner().invoke(main, ["nbgrader-grade", ASSIGNMENT.id, "--nbgrader-dir", str(course_dir)])
    assert done.exit_code == 0, done.output
    ours = {}
    for student in notebooks:  # what `attn-course grade` gives each on its own (its engine, in this process)
        path = course_dir / "submitted" / student / ASSIGNMENT.id / ASSIGNMENT.notebook
        result = grade_submission(COURSE, ASSIGNMENT.id, path, submitted_at=late_at if student == "late" else None)
        ours[student] = json.loads(to_json(result))
    return course_dir, ours, late_at


def _gradebook(course_dir):
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gradebook:
        rows = {}
        for student in ("ada", "late", "extended", "trudy"):
            submission = gradebook.find_submission(ASSIGNMENT.id, student)
            notebook = ASSIGNMENT.notebook.removesuffix(".ipynb")
            comments = {f: gradebook.find_comment(f, notebook, ASSIGNMENT.id, student).auto_comment for f in ASSIGNMENT.functions}
            grades = {f: gradebook.find_grade(f"grade_{f}", notebook, ASSIGNMENT.id, student).score for f in ASSIGNMENT.functions}
            rows[student] = (submission.score - submission.late_submission_penalty, grades, comments)
        return rows


def test_gradebook_scores_equal_attn_course_grade(graded):
    course_dir, ours, late_at = graded
    rows = _gradebook(course_dir)
    assert {s: round(r[0], 4) for s, r in rows.items()} == {s: pytest.approx(o["score"], abs=1e-4) for s, o in ours.items()}
    assert rows["ada"][0] == ASSIGNMENT.max_points
    days, fraction = late_fraction(ASSIGNMENT.due, late_at, COURSE.late_policy)
    assert days == DAYS_LATE and rows["late"][0] == pytest.approx(ASSIGNMENT.max_points * (1 - fraction))
    assert rows["trudy"][0] < ASSIGNMENT.max_points * (1 - COURSE.defaults.disallowed_import_penalty)
    assert rows["extended"][0] == ASSIGNMENT.max_points  # handed in as late as "late", within the extension


def test_the_due_date_and_the_extension_are_nbgrader_s_too(graded):
    from nbgrader.api import Gradebook

    course_dir, _, _ = graded
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gradebook:
        assert gradebook.find_assignment(ASSIGNMENT.id).duedate == ASSIGNMENT.due.astimezone(dt.timezone.utc).replace(tzinfo=None)
        assert gradebook.find_submission(ASSIGNMENT.id, "extended").extension == dt.timedelta(days=DAYS_LATE)
        assert gradebook.find_submission(ASSIGNMENT.id, "late").extension is None


def test_comments_carry_the_feedback_and_feedback_pages_are_written(graded):
    course_dir, ours, _ = graded
    first = ASSIGNMENT.functions[0]
    comment = _gradebook(course_dir)["trudy"][2][first]
    failed = next(q for q in ours["trudy"]["questions"] if q["function"] == first)["tests"][0]["message"]
    assert failed in comment
    for student in ours:
        page = course_dir / "feedback" / student / ASSIGNMENT.id / ASSIGNMENT.notebook.replace(".ipynb", ".html")
        assert page.is_file() and "<html" in page.read_text(encoding="utf-8").lower()
    shutil.rmtree(course_dir / "feedback")
