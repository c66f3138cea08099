"""The real tools agree with ``attn-course grade``: nbgrader 0.9 and otter 7 on hw1's solution, stub and buggy notebooks.

nbgrader: ``generate_assignment``, then one ``autograde`` of the solution, the release stub
nbgrader made, three buggy notebooks and the one-line reference import, then ``export``, in a
kernel that can import ``attn_reference`` (this venv's): the grade cells do not need it, and the
import scores what ``attn-course grade`` gives it. otter: ``otter run`` on the solution, the stub and the
first buggy notebook (each run starts its own kernel, about 20 s; the import-policy cases are checked
in-process, test_kernel_check). Both to
1e-4 of ``attn-course grade --seed <the export's seed>``, without the credit ``grade`` carries
forward from a wrong upstream function (the kernel cannot carry it: docs/threat-model.md); the
reference import to 1e-4 of ``grade``'s score itself (its downstream functions call the imported
function in the kernel, where ``grade`` carries their credit forward from the missing one). The
other assignments are checked in full by benchmarks/export_agreement.py.
"""

import pytest

from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.export import TARGETS, ExportContext, export_to
from autograder.export import agreement
from autograder.export.corpus import BUGGY, CHEAT, SOLUTION, corpus

pytestmark = pytest.mark.slow
pytest.importorskip("nbgrader")
pytest.importorskip("otter")

COURSE = load_course()
ASSIGNMENT = COURSE.assignments[0]
TOLERANCE = 1e-4
BUGGY_NOTEBOOKS = 3
DAYS_LATE = 2


@pytest.fixture(scope="module")
def notebooks(tmp_path_factory):
    """student -> notebook: the solution, nbgrader's release stub, three buggy students; and the nbgrader course."""
    work = tmp_path_factory.mktemp("agreement")
    context = ExportContext(COURSE, DEFAULT_COURSE_FILE, (ASSIGNMENT.id,))
    course_dir = work / "nbgrader"
    export_to(TARGETS["nbgrader"], context, course_dir)
    release = agreement.nbgrader_release(course_dir, ASSIGNMENT.id) / ASSIGNMENT.notebook
    files = {"stub": release}
    for entry in corpus(COURSE, ASSIGNMENT.id, context.spec(ASSIGNMENT.id), buggy=BUGGY_NOTEBOOKS, attack=False, cheat=True):
        if entry.kind in (SOLUTION, BUGGY, CHEAT):
            path = work / entry.name / ASSIGNMENT.notebook
            path.parent.mkdir()
            path.write_text(entry.notebook, encoding="utf-8")
            files[entry.name] = path
    seed = context.spec(ASSIGNMENT.id).seed
    graded = {name: agreement.ours(ASSIGNMENT.id, path, seed, DEFAULT_COURSE_FILE) for name, path in files.items()}
    return work, context, course_dir, files, graded


def test_the_notebooks_span_the_scores(notebooks):
    _, _, _, files, graded = notebooks
    ours = {name: g.score for name, g in graded.items()}
    assert len(files) == 3 + BUGGY_NOTEBOOKS
    assert ours["solution"] == ASSIGNMENT.max_points and ours["stub"] == 0
    assert all(0 < ours[name] < ASSIGNMENT.max_points for name in files if name not in ("solution", "stub"))
    assert graded["solution"].in_kernel == ours["solution"] and graded["stub"].in_kernel == 0


def _in_kernel(graded, names) -> dict:
    return {name: graded[name].in_kernel for name in names}


def _hand_in_late(course_dir) -> float:
    """course.yml's due date into gradebook.db (as the README's `nbgrader db assignment add` does), a submission
    DAYS_LATE days after it; the share of the score course.yml's late policy leaves it."""
    import datetime as dt

    from nbgrader.api import Gradebook

    from autograder.grade.late import late_fraction

    due = ASSIGNMENT.due.astimezone(dt.timezone.utc)
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gradebook:
        gradebook.update_or_create_assignment(ASSIGNMENT.id, duedate=due.replace(tzinfo=None))
    late_at = due + dt.timedelta(days=DAYS_LATE - 1, hours=12)
    folder = course_dir / "submitted" / "late" / ASSIGNMENT.id
    folder.mkdir(parents=True)
    (folder / "timestamp.txt").write_text(late_at.strftime("%Y-%m-%d %H:%M:%S.%f UTC"), encoding="utf-8")
    days, fraction = late_fraction(ASSIGNMENT.due, late_at, COURSE.late_policy)
    assert days == DAYS_LATE and 0 < fraction < 1
    return 1 - fraction


@pytest.mark.longest
def test_nbgrader_autograde_gives_our_scores(notebooks):
    _, _, course_dir, files, graded = notebooks
    keep = _hand_in_late(course_dir)  # the late-penalty plugin of the generated config, in the same autograde
    grades = agreement.nbgrader_grades(course_dir, ASSIGNMENT.id, {**files, "late": files["solution"]}, ASSIGNMENT.notebook)
    assert grades.pop("late").score == pytest.approx(graded["solution"].score * keep, abs=TOLERANCE)
    assert set(grades) == set(files)
    names = [name for name in files if name != "trudy"]
    assert {n: grades[n].score for n in names} == pytest.approx(_in_kernel(graded, names), abs=TOLERANCE)
    assert grades["trudy"].score == pytest.approx(graded["trudy"].score, abs=TOLERANCE)  # the reference import: ours


@pytest.mark.longest
def test_otter_run_gives_our_scores(notebooks):
    work, context, _, files, graded = notebooks
    export_to(TARGETS["otter"], context, work / "otter")
    zip_path = work / "otter" / ASSIGNMENT.id / "autograder.zip"
    buggy = [name for name in files if name not in ("trudy", "solution", "stub")]
    names = ["solution", "stub", buggy[0]]  # one buggy notebook: each otter run costs ~20 s (its kernel); nbgrader grades all
    scores = {name: agreement.otter(zip_path, files[name], work).score for name in names}
    assert scores == pytest.approx(_in_kernel(graded, names), abs=TOLERANCE)


def test_a_tool_that_does_not_finish_raises_tool_timeout_in_its_bound(tmp_path):
    import sys
    import time

    started = time.perf_counter()
    with pytest.raises(agreement.ToolTimeout, match="did not finish within 0.5 s"):
        agreement.run_tool([sys.executable, "-c", "import time; time.sleep(30)"], tmp_path, timeout=0.5)
    assert time.perf_counter() - started < 10


def test_a_tool_that_fails_is_not_taken_for_a_timeout(tmp_path):
    import sys

    with pytest.raises(agreement.ExportError) as raised:
        agreement.run_tool([sys.executable, "-c", "raise SystemExit(3)"], tmp_path)
    assert not isinstance(raised.value, agreement.ToolTimeout)
