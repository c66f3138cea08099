"""The GitHub Actions export: the workflow parses, and its grading step, run as a script with Actions' variables, reports."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.export import TARGETS, ExportContext, export_to
from autograder.export.corpus import corpus
from autograder.export.github import WORKFLOW
from tests.autograder.hostile_text import rendered_markdown

COURSE = load_course()
IDS = tuple(a.id for a in COURSE.assignments)
ASSIGNMENT = COURSE.assignments[0]
BIN = Path(sys.executable).parent
STEP_TIMEOUT_S = 120


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    out = tmp_path_factory.mktemp("github")
    export_to(TARGETS["github"], ExportContext(COURSE, DEFAULT_COURSE_FILE, IDS, bundle="https://example.org/course/attn_course-1-py3-none-any.whl"), out)
    return out


def _steps(export: Path, assignment_id: str) -> list[dict]:
    workflow = yaml.safe_load((export / assignment_id / WORKFLOW).read_text(encoding="utf-8"))
    return workflow["jobs"]["grade"]["steps"]


@pytest.mark.parametrize("assignment_id", IDS)
def test_the_workflow_installs_grades_and_uploads_and_never_hides_a_grader_error(export, assignment_id):
    steps = _steps(export, assignment_id)
    uses = [s.get("uses", "").split("@")[0] for s in steps]
    assert uses[:2] == ["actions/checkout", "actions/setup-python"] and "actions/upload-artifact" in uses
    install = next(s for s in steps if "pip install" in s.get("run", ""))
    assert "vars.ATTN_COURSE_BUNDLE" in install["env"]["ATTN_COURSE_BUNDLE"] and "example.org/course" in install["env"]["ATTN_COURSE_BUNDLE"]
    assert "classroom-resources/autograding-grading-reporter" in uses
    grade = next(s for s in steps if s.get("id") == "grade")
    assert grade["env"]["ASSIGNMENT"] == assignment_id and "attn-course grade" in grade["run"]
    assert not any(s.get("continue-on-error") for s in steps)
    release = export / assignment_id
    assert (release / COURSE.assignment(assignment_id).module).is_file()


def _literal(env: dict) -> dict:
    """The step's env without the values GitHub would fill in (secrets: none here)."""
    return {k: str(v) for k, v in env.items() if "${{" not in str(v)}


def _run_step(export: Path, tmp_path: Path, notebook: str | None) -> tuple[subprocess.CompletedProcess, str, dict]:
    repo = tmp_path / "repo"
    subprocess.run(["cp", "-r", str(export / ASSIGNMENT.id), str(repo)], check=True)
    if notebook is not None:
        (repo / ASSIGNMENT.notebook).write_text(notebook, encoding="utf-8")
    grade = next(s for s in _steps(export, ASSIGNMENT.id) if s.get("id") == "grade")
    summary, output = tmp_path / "summary.md", tmp_path / "output"
    env = {**os.environ, **_literal(grade["env"]), "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "GITHUB_WORKSPACE": str(repo),
           "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output), "RUNNER_TEMP": str(tmp_path)}
    done = subprocess.run(["bash", "-eo", "pipefail", "-c", grade["run"]], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=STEP_TIMEOUT_S, check=False)
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines()) if output.exists() else {}
    return done, summary.read_text() if summary.exists() else "", outputs


def _entries():
    spec = ExportContext(COURSE, DEFAULT_COURSE_FILE, IDS).spec(ASSIGNMENT.id)
    return {e.name: e for e in corpus(COURSE, ASSIGNMENT.id, spec, buggy=2, attack=False)}


def test_the_grading_step_reports_a_solution(export, tmp_path):
    done, summary, outputs = _run_step(export, tmp_path, _entries()["solution"].notebook)
    assert done.returncode == 0, done.stderr
    assert outputs["score"] == outputs["max_score"] == f"{ASSIGNMENT.max_points:g}" and outputs["diagnoses"] == ""
    assert summary.count("\n| Q") == len(ASSIGNMENT.questions) + 1 and "all tests passed" in summary
    assert (tmp_path / "repo" / "results.json").is_file()
    assert "seed" not in (tmp_path / "repo" / "results.json").read_text() + summary


def test_the_grading_step_reports_a_buggy_submissions_diagnoses_and_still_succeeds(export, tmp_path):
    done, summary, outputs = _run_step(export, tmp_path, _entries()["dana"].notebook)
    assert done.returncode == 0, done.stderr  # a low score is no failure of the job
    assert float(outputs["score"]) < ASSIGNMENT.max_points and "attention.scale_by_dk" in outputs["diagnoses"]
    assert "attention.scale_by_dk" in rendered_markdown(summary).text  # as GitHub shows it
    assert "| Q3 | `scaled_dot_product_attention` |" in summary


def test_a_grader_error_fails_the_step(export, tmp_path):
    repo_notebook = _entries()["solution"].notebook
    done, _, _ = _run_step(export, tmp_path, repo_notebook)
    assert done.returncode == 0
    (tmp_path / "repo" / ASSIGNMENT.module).write_text("def softmax(x):\n    return x\n", encoding="utf-8")
    grade = next(s for s in _steps(export, ASSIGNMENT.id) if s.get("id") == "grade")
    env = {**os.environ, **_literal(grade["env"]), "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "GITHUB_WORKSPACE": str(tmp_path / "repo"),
           "RUNNER_TEMP": str(tmp_path)}
    failed = subprocess.run(["bash", "-eo", "pipefail", "-c", grade["run"]], cwd=tmp_path / "repo", env=env,
                            capture_output=True, text=True, timeout=STEP_TIMEOUT_S, check=False)
    assert failed.returncode != 0 and "both changed" in failed.stderr  # two changed files: a person must choose


@pytest.mark.slow
def test_a_github_export_in_chinese_writes_the_summary_and_results_in_chinese(tmp_path_factory, tmp_path):
    from autograder.i18n import msg, render

    out = tmp_path_factory.mktemp("github_zh")
    export_to(TARGETS["github"], ExportContext(COURSE, DEFAULT_COURSE_FILE, (ASSIGNMENT.id,), language="zh"), out)
    done, summary, outputs = _run_step(out, tmp_path, _entries()["dana"].notebook)
    assert done.returncode == 0, done.stderr
    assert render(msg("Question"), "zh") in summary and "attention.scale_by_dk" in rendered_markdown(summary).text
    assert "attention.scale_by_dk" in outputs["diagnoses"]
    results = json.loads((tmp_path / "repo" / "results.json").read_text(encoding="utf-8"))
    assert results["output"].startswith(render(msg("Score: {score} / {max_score}", score=outputs["score"],
                                                   max_score=outputs["max_score"]), "zh"))
