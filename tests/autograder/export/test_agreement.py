"""The real tools agree with ``attn-course grade``: nbgrader 0.9 and otter 7 on hw1's solution, stub and buggy notebooks.

nbgrader: ``generate_assignment``, then one ``autograde`` of the solution, the release stub
nbgrader made and three buggy notebooks, then ``export``. otter: ``otter run`` on the same
notebooks. Both to 1e-4 of ``attn-course grade --seed <the export's seed>``. The other
assignments are checked structurally (test_nbgrader, test_otter) and in full by
benchmarks/export_agreement.py.
"""

import pytest

from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.export import TARGETS, ExportContext, export_to
from autograder.export import agreement
from autograder.export.corpus import BUGGY, SOLUTION, corpus

pytestmark = pytest.mark.slow
pytest.importorskip("nbgrader")
pytest.importorskip("otter")

COURSE = load_course()
ASSIGNMENT = COURSE.assignments[0]
TOLERANCE = 1e-4
BUGGY_NOTEBOOKS = 3


@pytest.fixture(scope="module")
def notebooks(tmp_path_factory):
    """student -> notebook: the solution, nbgrader's release stub, three buggy students; and the nbgrader course."""
    work = tmp_path_factory.mktemp("agreement")
    context = ExportContext(COURSE, DEFAULT_COURSE_FILE, (ASSIGNMENT.id,))
    course_dir = work / "nbgrader"
    export_to(TARGETS["nbgrader"], context, course_dir)
    release = agreement.nbgrader_release(course_dir, ASSIGNMENT.id) / ASSIGNMENT.notebook
    files = {"stub": release}
    for entry in corpus(COURSE, ASSIGNMENT.id, context.spec(ASSIGNMENT.id), buggy=BUGGY_NOTEBOOKS, attack=False):
        if entry.kind in (SOLUTION, BUGGY):
            path = work / entry.name / ASSIGNMENT.notebook
            path.parent.mkdir()
            path.write_text(entry.notebook, encoding="utf-8")
            files[entry.name] = path
    seed = context.spec(ASSIGNMENT.id).seed
    ours = {name: agreement.ours(ASSIGNMENT.id, path, seed, DEFAULT_COURSE_FILE).score for name, path in files.items()}
    return work, context, course_dir, files, ours


def test_the_notebooks_span_the_scores(notebooks):
    _, _, _, files, ours = notebooks
    assert len(files) == 2 + BUGGY_NOTEBOOKS
    assert ours["solution"] == ASSIGNMENT.max_points and ours["stub"] == 0
    assert all(0 < ours[name] < ASSIGNMENT.max_points for name in files if name not in ("solution", "stub"))


@pytest.mark.longest
def test_nbgrader_autograde_gives_our_scores(notebooks):
    _, _, course_dir, files, ours = notebooks
    grades = agreement.nbgrader_grades(course_dir, ASSIGNMENT.id, files, ASSIGNMENT.notebook)
    assert set(grades) == set(files)
    assert {n: g.score for n, g in grades.items()} == pytest.approx(ours, abs=TOLERANCE)


@pytest.mark.longest
def test_otter_run_gives_our_scores(notebooks):
    work, context, _, files, ours = notebooks
    export_to(TARGETS["otter"], context, work / "otter")
    zip_path = work / "otter" / ASSIGNMENT.id / "autograder.zip"
    scores = {name: agreement.otter(zip_path, path, work).score for name, path in files.items()}
    assert scores == pytest.approx(ours, abs=TOLERANCE)


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
