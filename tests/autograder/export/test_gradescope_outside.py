"""The Gradescope zip from outside the checkout: its setup.sh, then its run_autograder, in a Gradescope-style layout.

``/autograder/{source,submission,results}`` is simulated under a temporary folder
(``ATTN_AUTOGRADER_ROOT``); setup.sh makes its own venv there from the system's Python and installs
the course bundle the zip carries, with its pinned requirements from the index. Nothing of the
checkout is importable (asserted).
"""

from __future__ import annotations

import json
import time
import zipfile
from pathlib import Path

import pytest

from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.export import TARGETS, ExportContext, export_to
from autograder.export.corpus import corpus
from autograder.export.gradescope_results import results_problems
from autograder.layout import CourseDirectory
from autograder.seeding import ensure_secret
from tests.autograder.bundle.outside import assert_outside, outside_env, run, timed

pytestmark = pytest.mark.slow
COURSE = load_course()
ASSIGNMENT = COURSE.assignments[0]
LAYOUT = CourseDirectory.of()
#: A submission that looks for the course secret where the grader keeps it, and fails to load, showing it, when found.
SNOOP = '''
import os
def _find():
    found = [os.environ.get("ATTN_COURSE_SECRET", "")]
    for path in ("/autograder/source/.course_secret", "{root}/source/.course_secret", os.path.expanduser("~/.course_secret")):
        try:
            found.append(open(path).read())
        except OSError:
            pass
    return "".join(found).strip()
if _find():
    raise RuntimeError("SNOOPED " + _find())
'''


@pytest.fixture(scope="module")
def autograder_root(tmp_path_factory) -> Path:
    """``/autograder`` after Gradescope ran the zip's setup.sh: source/ unzipped, venv/ made by it."""
    out = tmp_path_factory.mktemp("gradescope_outside")
    export_to(TARGETS["gradescope"], ExportContext(COURSE, DEFAULT_COURSE_FILE, (ASSIGNMENT.id,)), out / "export")
    root = out / "autograder"
    with zipfile.ZipFile(out / "export" / ASSIGNMENT.id / "autograder.zip") as archive:
        archive.extractall(root / "source")
    started = time.perf_counter()
    done = run(["bash", root / "source" / "setup.sh"], root, outside_env(ATTN_AUTOGRADER_ROOT=str(root)))
    timed("gradescope setup.sh", started)
    assert done.returncode == 0, done.stderr[-3000:]
    return root


def _submit(root: Path, notebook: str, module: str | None = None) -> dict:
    submission = root / "submission"
    if submission.exists():
        for path in submission.iterdir():
            path.unlink()
    submission.mkdir(exist_ok=True)
    (submission / ASSIGNMENT.notebook).write_text(notebook, encoding="utf-8")
    (submission / ASSIGNMENT.module).write_bytes(module.encode() if module else (LAYOUT.release(ASSIGNMENT.id) / ASSIGNMENT.module).read_bytes())
    if module:  # the module is the submission: no notebook beside it
        (submission / ASSIGNMENT.notebook).unlink()
    (root / "submission_metadata.json").write_text(json.dumps({
        "created_at": ASSIGNMENT.due.isoformat(), "assignment": {"due_date": ASSIGNMENT.due.isoformat()},
        "users": [{"name": "Ada"}], "previous_submissions": []}), encoding="utf-8")
    done = run(["bash", root / "source" / "run_autograder"], root, outside_env(ATTN_AUTOGRADER_ROOT=str(root)))
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))


def _entries() -> dict:
    spec = ExportContext(COURSE, DEFAULT_COURSE_FILE, (ASSIGNMENT.id,)).spec(ASSIGNMENT.id)
    return {e.name: e for e in corpus(COURSE, ASSIGNMENT.id, spec, buggy=1, attack=False)}


def test_setup_sh_installs_the_bundle_outside_the_checkout(autograder_root, tmp_path):
    assert_outside(autograder_root / "venv" / "bin", tmp_path)
    shown = run([autograder_root / "venv" / "bin" / "attn-course", "--version"], tmp_path)
    assert "installed course bundle" in shown.stdout, shown.stdout + shown.stderr


def test_run_autograder_grades_with_the_bundle_and_a_rerun_gives_the_same_results(autograder_root):
    entries = _entries()
    solution = _submit(autograder_root, entries["solution"].notebook)
    assert results_problems(solution) == [] and solution["score"] == ASSIGNMENT.max_points
    assert {t["visibility"] for t in solution["tests"]} == {COURSE.gradescope.hidden_test_visibility}
    buggy = _submit(autograder_root, entries["chen"].notebook)
    again = _submit(autograder_root, entries["chen"].notebook)
    assert 0 < buggy["score"] < ASSIGNMENT.max_points
    assert (again["score"], again["tests"]) == (buggy["score"], buggy["tests"])  # the same inputs, the same feedback


def test_a_submission_looking_for_the_secret_finds_nothing_and_the_honest_one_keeps_its_points(autograder_root):
    secret = ensure_secret(DEFAULT_COURSE_FILE).decode()
    master = (LAYOUT.master(ASSIGNMENT)).read_text(encoding="utf-8")
    from autograder.build.markers import keep_solutions

    snooping = _submit(autograder_root, "", module=keep_solutions(master) + SNOOP.replace("{root}", str(autograder_root)))
    honest = _submit(autograder_root, "", module=keep_solutions(master))
    assert secret not in json.dumps(snooping) and "SNOOPED" not in json.dumps(snooping)
    assert honest["score"] == ASSIGNMENT.max_points  # the honest control keeps its points; the snoop only its import penalty
    assert snooping["score"] == pytest.approx(ASSIGNMENT.max_points * (1 - COURSE.defaults.disallowed_import_penalty))
