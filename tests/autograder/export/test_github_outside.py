"""Both GitHub Classroom workflows, run from outside the checkout by the small runner (workflow_runner.py).

The runner reads each exported workflow and runs its ``run:`` steps literally with bash; the
``uses:`` steps are simulated (checkout copies a fixture repository, setup-python puts a fresh
venv made outside the checkout first on PATH, upload-artifact copies, the Classroom reporter decodes
``ATTN_RESULTS``). The course bundle, named by the repository variable ``ATTN_COURSE_BUNDLE``, is
the only local artifact; everything else comes from the package index. For the instructor's
workflow the student repositories are local git repositories (file:// URLs), listed by a stand-in
``gh`` that insists on the token.
"""

from __future__ import annotations

import base64
import csv
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from autograder.bundle.wheel import write_bundle
from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.export import TARGETS, ExportContext, export_to
from autograder.export.corpus import corpus
from autograder.export.github import WORKFLOW
from autograder.export.github_class import FOLDER, WORKFLOW as CLASS_WORKFLOW
from tests.autograder.bundle.outside import assert_outside, fresh_venv, outside_env
from tests.autograder.export.workflow_runner import Runner, copy_tree

pytestmark = pytest.mark.slow
COURSE = load_course()
ASSIGNMENT = COURSE.assignments[0]
SECRET = "the instructor's course secret"
TOKEN = "a classroom token"
FAKE_GH = '''#!/usr/bin/env bash
[ "$1" = api ] && [ "$GH_TOKEN" = "{token}" ] && [[ "$*" == *"orgs/$ORG/repos"* ]] || {{ echo "gh: bad call $*" >&2; exit 1; }}
cat "{listing}"
'''


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> dict:
    """The export (no --bundle: the variable names it), the bundle, and a fresh venv outside the checkout."""
    root = tmp_path_factory.mktemp("github_outside")
    export_to(TARGETS["github"], ExportContext(COURSE, DEFAULT_COURSE_FILE, (ASSIGNMENT.id,)), root / "export")
    return {"root": root, "export": root / "export", "bundle": write_bundle(COURSE, root / "dist"),
            "bin": fresh_venv(root / "venv")}


def _actions(world: dict, repository: Path | None) -> dict:
    artifacts = world["root"] / "artifacts"

    def checkout(runner, _with, _env):
        copy_tree(repository, runner.workspace)

    def setup_python(runner, _with, _env):
        runner.env["PATH"] = f"{world['bin']}:{runner.env['PATH']}"

    def upload(runner, options, _env):
        source, target = runner.workspace / options["path"], artifacts / options["name"]
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True)
        elif source.exists():
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, target)

    def reporter(runner, options, env):
        for runner_id in options["runners"].split(","):
            runner.classroom = json.loads(base64.b64decode(env[f"{runner_id.strip().upper()}_RESULTS"]))

    return {"actions/checkout": checkout, "actions/setup-python": setup_python, "actions/upload-artifact": upload,
            "classroom-resources/autograding-grading-reporter": reporter}


def _entries() -> dict:
    spec = ExportContext(COURSE, DEFAULT_COURSE_FILE, (ASSIGNMENT.id,)).spec(ASSIGNMENT.id)
    return {e.name: e for e in corpus(COURSE, ASSIGNMENT.id, spec, buggy=1, attack=False)}


def _student_repo(world: dict, folder: Path, notebook: str | None) -> Path:
    shutil.copytree(world["export"] / ASSIGNMENT.id, folder)
    if notebook is not None:
        (folder / ASSIGNMENT.notebook).write_text(notebook, encoding="utf-8")
    return folder


def _run(world, workflow: Path, workspace: Path, repository: Path | None, **secrets) -> Runner:
    runner = Runner(workflow, workspace, outside_env(), variables={"ATTN_COURSE_BUNDLE": str(world["bundle"])},
                    secrets=secrets, actions=_actions(world, repository))
    return runner.run()


def test_the_student_workflow_reports_to_classroom_the_summary_and_the_artifact(world):
    repository = _student_repo(world, world["root"] / "student", _entries()["chen"].notebook)
    workflow = world["export"] / ASSIGNMENT.id / WORKFLOW
    first = _run(world, workflow, world["root"] / "run1" / "repo", repository, ATTN_FEEDBACK_SECRET="feedback only")
    assert_outside(world["bin"], world["root"])
    results = json.loads((world["root"] / "artifacts" / "results" / "results.json").read_text(encoding="utf-8"))
    points = sum(test["score"] for test in first.classroom["tests"])
    assert first.classroom["max_score"] == ASSIGNMENT.max_points and points == pytest.approx(results["score"])
    assert 0 < points < ASSIGNMENT.max_points and first.classroom["status"] == "fail"
    assert len(first.classroom["tests"]) == len(ASSIGNMENT.questions) and "| Q1 |" in first.summary
    again = _run(world, workflow, world["root"] / "run2" / "repo", repository, ATTN_FEEDBACK_SECRET="feedback only")
    assert again.classroom == first.classroom  # the same push, the same feedback
    assert not [p for p in (world["export"] / ASSIGNMENT.id).rglob("*") if p.is_file() and SECRET in p.read_text(errors="ignore")]


def _git_repo(folder: Path) -> str:
    for command in (["git", "init", "-q"], ["git", "add", "-A"],
                    ["git", "-c", "user.name=s", "-c", "user.email=s@example.edu", "commit", "-qm", "work"]):
        subprocess.run(command, cwd=folder, check=True, capture_output=True)
    return folder.as_uri()


def test_the_instructor_workflow_grades_every_student_repository_into_the_gradebook(world):
    entries = _entries()
    prefix = ASSIGNMENT.id.replace("_", "-")
    students = {"ada": entries["solution"].notebook, "ben": entries["chen"].notebook, "cy": None}
    urls = [_git_repo(_student_repo(world, world["root"] / "org" / f"{prefix}-{name}", notebook)) for name, notebook in students.items()]
    (world["root"] / "listing").write_text("\n".join(urls) + "\n", encoding="utf-8")
    fake = world["root"] / "fake_bin"
    fake.mkdir()
    (fake / "gh").write_text(FAKE_GH.format(token=TOKEN, listing=world["root"] / "listing"), encoding="utf-8")
    (fake / "gh").chmod(0o755)
    workflow = world["export"] / FOLDER / CLASS_WORKFLOW.format(assignment=ASSIGNMENT.id)
    runner = Runner(workflow, world["root"] / "instructor", outside_env(PATH=f"{fake}:{outside_env()['PATH']}"),
                    variables={"ATTN_COURSE_BUNDLE": str(world["bundle"]), "ATTN_CLASSROOM_ORG": "course-org"},
                    secrets={"ATTN_CLASSROOM_TOKEN": TOKEN, "ATTN_COURSE_SECRET": SECRET}, actions=_actions(world, None))
    runner.run()
    report = world["root"] / "artifacts" / f"gradebook-{ASSIGNMENT.id}"
    assert (report / "gradebook.sqlite3").is_file() and (report / "class-report.html").is_file()
    with (report / "grades.csv").open(encoding="utf-8") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    scores = {name: float(rows[name][ASSIGNMENT.id]) for name in students}
    assert scores["ada"] == ASSIGNMENT.max_points and scores["cy"] == 0 and 0 < scores["ben"] < ASSIGNMENT.max_points
    assert runner.outputs["fetch"]["students"] == str(len(students))
