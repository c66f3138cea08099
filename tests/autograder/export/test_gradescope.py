"""The Gradescope autograder.zip: its layout, and a local replay of /autograder for a solution, a stub and a buggy submission."""

import datetime as dt
import io
import json
import os
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.export import TARGETS, ExportContext, export_to
from autograder.export.corpus import corpus
from autograder.export.gradescope_results import results_problems
from autograder.layout import CourseDirectory
from autograder.seeding import SECRET_FILE

COURSE = load_course()
LAYOUT = CourseDirectory.of()
IDS = tuple(a.id for a in COURSE.assignments)
ASSIGNMENT = COURSE.assignments[0]
#: Ten hours after the due date: within the first day late (course.yml's grace period is shorter).
ONE_DAY_LATE = ASSIGNMENT.due + dt.timedelta(hours=10)
BIN = Path(sys.executable).parent
#: Seconds one replay may take.
REPLAY_TIMEOUT_S = 120


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    out = tmp_path_factory.mktemp("gradescope")
    export_to(TARGETS["gradescope"], ExportContext(COURSE, DEFAULT_COURSE_FILE, IDS), out)
    return out


def _members(export: Path, assignment_id: str) -> dict[str, zipfile.ZipInfo]:
    with zipfile.ZipFile(export / assignment_id / "autograder.zip") as archive:
        return {info.filename: info for info in archive.infolist()}


@pytest.mark.parametrize("assignment_id", IDS)
def test_the_zip_has_setup_and_run_autograder_at_its_root_and_the_course_bundle(export, assignment_id):
    members = _members(export, assignment_id)
    assignment = COURSE.assignment(assignment_id)
    assert {"setup.sh", "run_autograder", "requirements.txt", SECRET_FILE} <= set(members)
    version = f"{metadata.version('attn-course')}+{COURSE.version}" if COURSE.version else metadata.version("attn-course")
    assert [n for n in members if n.endswith(".whl")] == [f"attn_course-{version}-py3-none-any.whl"]
    with zipfile.ZipFile(export / assignment_id / "autograder.zip") as archive:
        with zipfile.ZipFile(io.BytesIO(archive.read(f"attn_course-{version}-py3-none-any.whl"))) as bundle:
            inside = set(bundle.namelist())
    assert {f"attn_course_content/assignments/{assignment_id}/{assignment.module}", "attn_course_content/course.yml"} <= inside
    assert not [n for n in members if n.startswith(("hidden_tests/", "solutions/", "assignments/"))]  # all in the bundle
    assert all(members[n].external_attr >> 16 & 0o111 for n in ("setup.sh", "run_autograder"))
    with zipfile.ZipFile(export / assignment_id / "autograder.zip") as archive:
        run = archive.read("run_autograder").decode()
        requirements = archive.read("requirements.txt").decode().split("\n")
        setup = archive.read("setup.sh").decode()
    assert f"grade {assignment_id} \"$ROOT/submission\"" in run and "--format gradescope" in run and "submission_metadata.json" in run
    assert f"numpy=={metadata.version('numpy')}" in requirements and f"click=={metadata.version('click')}" in requirements
    assert all("==" in line for line in requirements if line)
    assert "requirements.txt" in setup and ".whl" in setup
    for script in (run, setup):
        assert subprocess.run(["bash", "-n"], input=script, text=True, check=False).returncode == 0


def _replay(export: Path, root: Path, notebook: str, bin_dir: Path = BIN) -> dict:
    with zipfile.ZipFile(export / ASSIGNMENT.id / "autograder.zip") as archive:
        archive.extractall(root / "source")
    (root / "submission").mkdir()
    (root / "submission" / ASSIGNMENT.notebook).write_text(notebook, encoding="utf-8")
    # the untouched module stub next to the notebook: the zip's release tells them apart
    (root / "submission" / ASSIGNMENT.module).write_bytes(LAYOUT.release(ASSIGNMENT.id).joinpath(ASSIGNMENT.module).read_bytes())
    (root / "submission_metadata.json").write_text(json.dumps({
        "created_at": ONE_DAY_LATE.isoformat(), "assignment": {"due_date": ASSIGNMENT.due.isoformat()},
        "users": [{"name": "Ada"}], "previous_submissions": [],
    }), encoding="utf-8")
    env = {**os.environ, "ATTN_AUTOGRADER_ROOT": str(root), "ATTN_AUTOGRADER_BIN": str(bin_dir)}
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True, text=True,
                          timeout=REPLAY_TIMEOUT_S, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8")) | {"_stdout": done.stdout}


def test_a_local_replay_grades_solution_stub_and_buggy_with_the_documented_fields(export, tmp_path):
    entries = {e.name: e for e in corpus(COURSE, ASSIGNMENT.id, ExportContext(COURSE, DEFAULT_COURSE_FILE, IDS).spec(ASSIGNMENT.id),
                                         buggy=1, attack=False)}
    scores = {}
    for name in ("solution", "stub", "chen"):
        results = _replay(export, tmp_path / name, entries[name].notebook)
        results.pop("_stdout")
        assert results_problems(results) == []
        assert {t["visibility"] for t in results["tests"]} == {COURSE.gradescope.hidden_test_visibility}
        assert "1 day(s) late" in results["output"]  # the submission time came from submission_metadata.json
        scores[name] = results["score"]
    late = 1 - COURSE.late_policy.penalty_per_day
    assert scores["solution"] == pytest.approx(ASSIGNMENT.max_points * late) and scores["stub"] == 0
    assert 0 < scores["chen"] < scores["solution"]


def test_run_autograder_falls_back_to_no_sandbox_only_when_refused(export, tmp_path):
    """A grader that refuses without bubblewrap (as in Gradescope's container) is run again with --sandbox none."""
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "python").write_text(f"#!/usr/bin/env bash\nexec \"{BIN / 'python'}\" \"$@\"\n", encoding="utf-8")
    (shim / "python").chmod(0o755)  # the venv's own python by its path (a link elsewhere may not find the venv)
    (shim / "attn-course").write_text(
        "#!/usr/bin/env bash\ncase \" $* \" in *' --sandbox none '*) exec \"" + str(BIN / "attn-course") + "\" \"$@\";; esac\n"
        "echo 'Error: refusing to grade without the sandbox (bwrap cannot start the worker): ...' >&2\nexit 1\n",
        encoding="utf-8")
    (shim / "attn-course").chmod(0o755)
    entry = corpus(COURSE, ASSIGNMENT.id, ExportContext(COURSE, DEFAULT_COURSE_FILE, IDS).spec(ASSIGNMENT.id), buggy=0, attack=False)[0]
    results = _replay(export, tmp_path / "root", entry.notebook, shim)
    assert "grading this one submission again with --sandbox none" in results["_stdout"]
    assert results["extra_data"]["isolation"] == "none"


def test_results_problems_finds_what_gradescope_would_not_read():
    good = {"score": 1.0, "tests": [{"score": 1.0, "max_score": 2.0, "status": "passed", "visibility": "visible"}]}
    assert results_problems(good) == []
    bad = {"tests": [{"max_score": 2.0, "status": "ok", "visibility": "sometimes", "colour": "red"}], "score": "high"}
    problems = "\n".join(results_problems(bad))
    for expected in ("'ok' is not one of", "'sometimes' is not one of", "unknown field 'colour'", "results.score: str"):
        assert expected in problems
    assert results_problems([]) == ["results.json is not an object"]
    assert "score above max_score" in "\n".join(results_problems({"tests": [{"score": 3, "max_score": 2}]}))


@pytest.mark.slow
def test_a_gradescope_export_in_chinese_writes_chinese_feedback(tmp_path_factory, tmp_path):
    from autograder.i18n import msg, render

    out = tmp_path_factory.mktemp("gradescope_zh")
    export_to(TARGETS["gradescope"], ExportContext(COURSE, DEFAULT_COURSE_FILE, (ASSIGNMENT.id,), language="zh"), out)
    with zipfile.ZipFile(out / ASSIGNMENT.id / "autograder.zip") as archive:
        assert "--format gradescope --lang zh" in archive.read("run_autograder").decode()
    spec = ExportContext(COURSE, DEFAULT_COURSE_FILE, IDS).spec(ASSIGNMENT.id)
    chen = next(e for e in corpus(COURSE, ASSIGNMENT.id, spec, buggy=1, attack=False) if e.name == "chen")
    results = _replay(out, tmp_path / "chen", chen.notebook)
    results.pop("_stdout")
    assert results_problems(results) == []
    assert results["output"].startswith(render(msg("Score: {score} / {max_score}", score=f"{results['score']:g}",
                                                   max_score=f"{ASSIGNMENT.max_points:g}"), "zh"))
    assert render(msg("{days} day(s) late", days="1"), "zh") in results["output"]
    assert results["extra_data"]["penalties"][0]["reason"].endswith("day(s) late")  # the record's English, for instructors


def test_the_english_export_names_the_course_feedback_language_and_its_wheel_holds_the_catalog(export):
    with zipfile.ZipFile(export / ASSIGNMENT.id / "autograder.zip") as archive:
        assert f"--lang {COURSE.feedback_language}" in archive.read("run_autograder").decode()
        wheel = next(name for name in archive.namelist() if name.endswith(".whl"))
        with zipfile.ZipFile(io.BytesIO(archive.read(wheel))) as package:
            assert "autograder/i18n/zh.po" in package.namelist()
