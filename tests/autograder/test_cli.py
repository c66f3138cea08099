"""``attn-course``: config, build, grade (one submission and a class), gradebook, check."""

from __future__ import annotations

import csv
import datetime as dt
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
import yaml
from click.testing import CliRunner

import autograder.paths
from autograder.build.markers import keep_solutions
from autograder.cli import main
from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.demo.sample_class import buggy_source, sample_class
from autograder.paths import ASSIGNMENTS_DIR, SOLUTIONS_DIR
from tests.autograder.support import course_beside

COURSE = load_course()
BUGGY_STUDENTS = sample_class(COURSE.layout).students
HW1 = COURSE.assignment("hw1_scaled_attention")
IDS = [a.id for a in COURSE.assignments]
SOLUTION = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
STUB = (ASSIGNMENTS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8")
ATTN_COURSE = Path(sys.executable).with_name("attn-course")


def run(*args: str):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


@pytest.fixture
def solution_file(tmp_path) -> Path:
    path = tmp_path / "solution" / HW1.module
    path.parent.mkdir()
    path.write_text(SOLUTION, encoding="utf-8")
    return path


@pytest.fixture
def stub_file(tmp_path) -> Path:
    path = tmp_path / "stub" / HW1.module
    path.parent.mkdir()
    path.write_text(STUB, encoding="utf-8")
    return path


def _course_yml_keys() -> list[str]:
    """Dotted keys of the sections course.yml writes as mappings, read from the file itself."""
    data = yaml.safe_load(DEFAULT_COURSE_FILE.read_text(encoding="utf-8"))
    return [f"{section}.{key}" for section, value in data.items() if isinstance(value, dict) for key in value]


def test_config_validates_the_course_and_lists_every_key():
    result = run("config")
    assert result.exit_code == 0
    assert f"valid ({len(IDS)} assignments)" in result.output
    listed = {line for line in result.output.splitlines() if line and not line.startswith(" ")}
    keys = _course_yml_keys()
    assert len(keys) > 10
    assert set(keys) <= listed


def test_config_of_an_invalid_course_file_fails_naming_the_key(tmp_path):
    bad = tmp_path / "course.yml"
    bad.write_text(DEFAULT_COURSE_FILE.read_text(encoding="utf-8").replace("call_timeout_s: 5 ", "call_timeout_s: -5 "), encoding="utf-8")
    result = run("--course", bad, "config")
    assert result.exit_code == 1
    assert "call_timeout_s" in result.output
    assert "Traceback" not in result.output


def test_the_installed_command_runs():
    completed = subprocess.run([ATTN_COURSE, "config"], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stderr
    assert "defaults.call_timeout_s" in completed.stdout


def test_build_check_only_passes_on_the_committed_releases():
    result = run("build", "--check-only")
    assert result.exit_code == 0, result.output
    for assignment_id in IDS:
        assert f"{assignment_id}: up to date" in result.output


def test_build_check_only_fails_on_a_stale_release(tmp_path, monkeypatch):
    releases = tmp_path / "assignments"
    shutil.copytree(ASSIGNMENTS_DIR / HW1.id, releases / HW1.id, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    stale = releases / HW1.id / HW1.module
    stale.write_text(stale.read_text(encoding="utf-8") + "\n# edited by hand\n", encoding="utf-8")
    monkeypatch.setattr(autograder.paths, "ASSIGNMENTS_DIR", releases)
    result = run("build", "--check-only", HW1.id)
    assert result.exit_code == 1
    assert f"changed: {HW1.module}" in result.output
    assert stale.read_text(encoding="utf-8").endswith("# edited by hand\n")


def test_build_check_only_fails_on_a_stale_or_missing_chinese_notebook(tmp_path, monkeypatch):
    releases = tmp_path / "assignments"
    shutil.copytree(ASSIGNMENTS_DIR / HW1.id, releases / HW1.id, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    chinese = releases / HW1.id / HW1.notebook.replace(".ipynb", ".zh.ipynb")
    chinese.write_text(chinese.read_text(encoding="utf-8").replace("缩放点积注意力", "缩放点积"), encoding="utf-8")
    monkeypatch.setattr(autograder.paths, "ASSIGNMENTS_DIR", releases)
    result = run("build", "--check-only", HW1.id)
    assert result.exit_code == 1 and f"changed: {chinese.name}" in result.output
    chinese.unlink()
    result = run("build", "--check-only", HW1.id)
    assert result.exit_code == 1 and f"missing: {chinese.name}" in result.output


def test_build_of_an_unknown_assignment_fails_clearly():
    result = run("build", "--check-only", "hw9_nothing")
    assert result.exit_code != 0
    assert "hw9_nothing" in result.output


@pytest.mark.slow
def test_grade_the_solution_as_gradescope_json(tmp_path, solution_file):
    out = tmp_path / "out" / "results.json"
    result = run("grade", HW1.id, solution_file, "--format", "gradescope", "--out", out)
    assert result.exit_code == 0, result.output
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["score"] == HW1.max_points
    assert [t["name"] for t in results["tests"]] == [f"Q{n} {q.function}" for n, q in enumerate(HW1.questions, 1)]
    assert {t["status"] for t in results["tests"]} == {"passed"}
    assert f"{HW1.max_points:g}/{HW1.max_points:g}" in result.output


@pytest.mark.slow
def test_grade_the_stub_scores_zero_and_exits_zero(stub_file):
    result = run("grade", HW1.id, stub_file, "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert (report["score"], report["max_score"], report["load_error"]) == (0.0, HW1.max_points, None)
    assert all(q["score"] == 0 for q in report["questions"])


def test_grade_a_missing_submission_is_a_usage_error_on_stderr(tmp_path):
    result = run("grade", HW1.id, tmp_path / "nothing_here.py", "--format", "json")
    assert result.exit_code == 2
    assert "nothing_here.py' does not exist" in result.stderr and result.stdout == ""


def test_grade_an_unknown_assignment_fails_naming_the_known_ones(solution_file):
    result = run("grade", "hw9_nothing", solution_file)
    assert result.exit_code != 0
    assert "hw9_nothing" in result.output
    assert HW1.id in result.output
    assert "Traceback" not in result.output


@pytest.mark.slow
def test_grade_as_junit_is_xml_with_a_suite_per_question(tmp_path):
    buggy = tmp_path / HW1.module
    buggy.write_text(buggy_source(SOLUTION, BUGGY_STUDENTS[HW1.id][0]), encoding="utf-8")
    result = run("grade", HW1.id, buggy, "--format", "junit")
    assert result.exit_code == 0, result.output
    root = ElementTree.fromstring(result.output)
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [f"Q{n} {q.function}" for n, q in enumerate(HW1.questions, 1)]
    cases = root.findall("./testsuite/testcase")
    failures = root.findall("./testsuite/testcase/failure")
    assert 0 < len(failures) < len(cases)
    assert sum(int(s.get("failures")) for s in suites) == len(failures)


@pytest.mark.slow
def test_grade_a_class_then_export_the_gradebook(tmp_path):
    folder = tmp_path / "class"
    (folder / "ada").mkdir(parents=True)
    (folder / "ada" / HW1.module).write_text(SOLUTION, encoding="utf-8")
    (folder / "lee.py").write_bytes(b"\x7fELF\x00\x01binary")
    db = tmp_path / "gradebook.sqlite3"
    graded = run("grade", HW1.id, folder, "-j", "1", "--gradebook", db)
    assert graded.exit_code == 0, graded.output
    assert "2 graded, 0 already graded (skipped), 0 grader errors" in graded.output

    exported = run("gradebook", "--gradebook", db, "--csv", tmp_path / "out.csv", "--feedback", tmp_path / "feedback",
                   "--html", tmp_path / "report.html")
    assert exported.exit_code == 0, exported.output
    assert f"class report -> {tmp_path / 'report.html'}" in exported.stdout
    assert "not loaded: lee.py is a binary file" in (tmp_path / "report.html").read_text(encoding="utf-8")
    assert (tmp_path / "feedback" / "ada" / HW1.id / "feedback.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    with (tmp_path / "out.csv").open(newline="", encoding="utf-8") as handle:
        records = list(csv.reader(handle))
    assert records[0] == ["student", *IDS, "total", "missing"]
    assert {r[0]: r[-2] for r in records[1:]} == {"ada": f"{HW1.max_points:.1f}", "lee": "0.0"}
    for student in ("ada", "lee"):
        results = json.loads((tmp_path / "feedback" / student / HW1.id / "results.json").read_text(encoding="utf-8"))
        assert {"score", "tests", "output"} <= results.keys()
    assert "binary" in (tmp_path / "feedback" / "lee" / HW1.id / "feedback.txt").read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_class_folder_warns_of_entries_without_a_time_row_and_of_rows_naming_no_entry(tmp_path, monkeypatch):
    from autograder.gradebook.reasons import NO_TIME

    monkeypatch.setenv("COLUMNS", "300")  # the table's reasons on one line

    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("ada.py", "jean.luc.py", "zoe.py"):
        (folder / name).write_text(SOLUTION, encoding="utf-8")
    late = (HW1.due + dt.timedelta(days=1, hours=1)).isoformat()
    (folder / "submitted_at.csv").write_text(f"student,submitted_at\nada,{late}\njean.luc,{late}\nghost,{late}\n",
                                             encoding="utf-8")
    db = tmp_path / "gradebook.sqlite3"
    for quiet in ((), ("--quiet",)):
        graded = run("grade", HW1.id, folder, "-j", "2", "--gradebook", db, *quiet)
        assert graded.exit_code == 0, graded.output
        warnings = [line for line in graded.stderr.splitlines() if line.startswith("warning:")]
        assert len(warnings) == 2, graded.stderr
        assert "1 entries have no row in submitted_at.csv" in warnings[0] and warnings[0].endswith(
            "zoe (add their rows and grade again: only they are graded again)")
        assert "1 rows of submitted_at.csv name no entry" in warnings[1] and warnings[1].endswith(": ghost")
        assert "jean" not in graded.stderr  # jean.luc.py is student jean.luc: its row is found
    shown = run("gradebook", "--gradebook", db, "--html", tmp_path / "report.html")
    zoe_line = next(line for line in shown.stdout.splitlines() if line.lstrip("│ ").startswith("zoe"))
    assert NO_TIME in zoe_line
    assert NO_TIME in (tmp_path / "report.html").read_text(encoding="utf-8")
    with sqlite3.connect(db) as connection:
        late_days = dict(connection.execute("SELECT student, days_late FROM submissions"))
    assert late_days["jean.luc"] == late_days["ada"] > 0 and late_days["zoe"] == 0


def test_gradebook_feedback_says_how_many_folders_it_wrote_and_each_student_has_one(tmp_path):
    """The report: an id named after another's feedback folder shared it, and the command said 3 folders where 2 were."""
    import hashlib

    from autograder.gradebook import Gradebook
    from tests.autograder.gradebook.rows import a_test, graded_row

    victim, attacker = "ada lovelace", "ada_lovelace-" + hashlib.sha256(b"ada lovelace").hexdigest()[:8]
    points = HW1.questions[0].points
    rows = [graded_row(victim, [(HW1.questions[0].function, points, points, [a_test(HW1.questions[0].function, True)])]),
            graded_row(attacker, [(HW1.questions[0].function, 0.0, points, [a_test(HW1.questions[0].function, False)])]),
            graded_row(attacker, [(HW1.questions[0].function, 0.0, points, [])], assignment=IDS[1])]
    db = tmp_path / "gradebook.sqlite3"
    with Gradebook(db) as book:
        for row in rows:
            book.record(row)
    (tmp_path / "feedback" / "left-from-before").mkdir(parents=True)
    result = run("gradebook", "--gradebook", db, "--feedback", tmp_path / "feedback", "--quiet")
    assert result.exit_code == 0, result.output
    student_dirs = [p for p in (tmp_path / "feedback").iterdir() if p.is_dir() and p.name != "left-from-before"]
    submission_dirs = [q for p in student_dirs for q in p.iterdir()]
    assert (len(student_dirs), len(submission_dirs)) == (2, len(rows))
    assert (f"feedback on {len(submission_dirs)} submissions in {len(student_dirs)} student folders -> "
            f"{tmp_path / 'feedback'}") in result.stdout
    assert "1 other folders" in result.stdout and "left-from-before" in result.stdout
    with (tmp_path / "feedback" / "students.csv").open(newline="", encoding="utf-8") as handle:
        folders = {record["student"]: record["folder"] for record in csv.DictReader(handle)}
    for row in rows:
        results = json.loads((tmp_path / "feedback" / folders[row.student] / row.assignment / "results.json").read_text(
            encoding="utf-8"))
        assert results["score"] == row.score, row.student


def test_gradebook_without_a_gradebook_file_fails_clearly(tmp_path):
    result = run("gradebook", "--gradebook", tmp_path / "none.sqlite3")
    assert result.exit_code == 2
    assert "no gradebook" in result.stderr
    assert not (tmp_path / "none.sqlite3").exists()


def _question_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if any(f" Q{n} {q.function} " in line for n, q in enumerate(HW1.questions, 1))]


@pytest.mark.slow
def test_check_passes_every_question_of_the_solution(solution_file):
    result = run("check", HW1.id, solution_file)
    assert result.exit_code == 0, result.output
    lines = _question_lines(result.output)
    assert len(lines) == len(HW1.questions)
    assert all(line.split()[0] == "pass" for line in lines), result.output


@pytest.mark.slow
def test_check_fails_every_question_of_the_stub_naming_not_implemented(stub_file):
    result = run("check", HW1.id, stub_file)
    assert result.exit_code == 1, result.output
    lines = _question_lines(result.output)
    assert len(lines) == len(HW1.questions)
    assert all(line.split()[0] == "FAIL" for line in lines)
    assert result.output.count("NotImplementedError") >= len(HW1.questions)


BROKEN_GRADER = """
import autograder.grade.api as api
from autograder.errors import GraderError

def broken(*args, **kwargs):
    raise GraderError("a grader failure injected by the test")

api.grade_submission = broken
"""


def test_a_batch_the_grader_fails_on_exits_non_zero_and_is_retried(tmp_path, monkeypatch):
    folder = tmp_path / "class"
    (folder / "ada").mkdir(parents=True)
    (folder / "ada" / HW1.module).write_text(SOLUTION, encoding="utf-8")
    db = tmp_path / "gradebook.sqlite3"
    injected = tmp_path / "inject"
    injected.mkdir()
    (injected / "sitecustomize.py").write_text(BROKEN_GRADER, encoding="utf-8")  # only the grading processes load it
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(injected), os.environ.get("PYTHONPATH", "")]))
    failed = run("grade", HW1.id, folder, "-j", "1", "--gradebook", db)
    assert failed.exit_code != 0 and "grader failed on 1 entries" in failed.output
    monkeypatch.delenv("PYTHONPATH")
    retried = run("grade", HW1.id, folder, "-j", "1", "--gradebook", db)
    assert retried.exit_code == 0 and "1 graded, 0 already graded" in retried.output


def test_one_students_folder_with_a_cache_is_not_a_class(tmp_path):
    from autograder.batch.command import is_class_folder as _is_class_folder

    student = tmp_path / "student"
    (student / "__pycache__").mkdir(parents=True)
    (student / "__pycache__" / "my_work.cpython-311.pyc").write_bytes(b"\0")
    (student / "my_work.py").write_text("x = 1\n", encoding="utf-8")
    (student / "data").mkdir()
    assert not _is_class_folder(student, HW1)
    classroom = tmp_path / "class"
    (classroom / "ada").mkdir(parents=True)
    (classroom / "ada" / "work.py").write_text("x = 1\n", encoding="utf-8")
    (classroom / "ben.py").write_text("x = 1\n", encoding="utf-8")
    assert _is_class_folder(classroom, HW1)


def test_one_students_folder_with_the_chinese_notebook_and_notes_is_not_a_class(tmp_path):
    from autograder.batch.command import is_class_folder as _is_class_folder

    student = tmp_path / "student"
    student.mkdir()
    (student / HW1.notebook.replace(".ipynb", ".zh.ipynb")).write_text("{}", encoding="utf-8")
    (student / "scratch.py").write_text("x = 1\n", encoding="utf-8")
    assert not _is_class_folder(student, HW1)
    (student / HW1.notebook.replace(".ipynb", ".zh.ipynb")).unlink()
    (student / "other.py").write_text("x = 1\n", encoding="utf-8")
    assert _is_class_folder(student, HW1)


def test_the_late_policy_applies_to_one_submission_given_its_time(tmp_path):
    path = tmp_path / HW1.module
    path.write_text(SOLUTION, encoding="utf-8")
    late = (HW1.due + dt.timedelta(days=3)).strftime("%Y-%m-%dT%H:%M:%S%z")
    result = run("grade", HW1.id, path, "--format", "json", "--submitted-at", late)
    assert result.exit_code == 0 and json.loads(result.output)["days_late"] == 3


@pytest.mark.slow
def test_a_seed_replays_a_run_exactly_and_stays_out_of_the_students_reports(tmp_path):
    buggy = tmp_path / HW1.module
    buggy.write_text(SOLUTION.replace("scores = scores / math.sqrt(d_k)", "scores = scores / 8"), encoding="utf-8")
    first = json.loads(run("grade", HW1.id, buggy, "--format", "json").output)
    assert isinstance(first["seed"], int)
    replay = json.loads(run("grade", HW1.id, buggy, "--format", "json", "--seed", first["seed"]).output)
    messages = [[t["message"] for t in q["tests"]] for q in first["questions"]]
    assert [[t["message"] for t in q["tests"]] for q in replay["questions"]] == messages
    assert replay["score"] == first["score"]
    for output_format in ("text", "gradescope", "junit"):
        report = run("grade", HW1.id, buggy, "--format", output_format, "--seed", first["seed"]).output
        assert str(first["seed"]) not in report and "seed" not in report.lower()


def test_a_folder_with_two_changed_candidates_exits_non_zero_naming_both(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / HW1.module).write_text(SOLUTION, encoding="utf-8")
    (folder / HW1.notebook).write_text('{"cells": [{"cell_type": "code", "source": "def softmax(x):\\n    return x"}]}', encoding="utf-8")
    for command in ("check", "grade"):
        result = run(command, HW1.id, folder)
        assert result.exit_code != 0 and HW1.module in result.output and HW1.notebook in result.output, result.output


def test_a_grader_error_anywhere_below_the_cli_is_one_message_without_a_traceback(tmp_path, monkeypatch):
    import autograder.grade.api
    from autograder.errors import GraderError

    def broken(*args, **kwargs):
        raise GraderError("the hidden tests are missing: reinstall the course")

    monkeypatch.setattr(autograder.grade.api, "grade_submission", broken)
    (tmp_path / HW1.module).write_text(SOLUTION, encoding="utf-8")
    result = run("grade", HW1.id, tmp_path / HW1.module)
    assert result.exit_code == 1
    assert result.stderr.strip() == "Error: the hidden tests are missing: reinstall the course"
    assert result.stdout == ""


def test_sandbox_none_is_asked_for_explicitly_and_recorded_in_the_result(solution_file, monkeypatch):
    monkeypatch.delenv("ATTN_SANDBOX", raising=False)
    result = run("grade", HW1.id, solution_file, "--format", "json", "--sandbox", "none")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["isolation"] == "none" and report["score"] == HW1.max_points
    assert json.loads(run("grade", HW1.id, solution_file, "--format", "json").output)["isolation"] == "bwrap"


def test_sandbox_option_and_environment_must_agree(solution_file, monkeypatch):
    monkeypatch.setenv("ATTN_SANDBOX", "bwrap")
    result = run("grade", HW1.id, solution_file, "--sandbox", "none")
    assert result.exit_code == 1 and "contradicts ATTN_SANDBOX=bwrap" in result.output


def _class_of_solutions(tmp_path, students: tuple[str, ...]) -> Path:
    """A class folder: one folder per student, each holding the solution."""
    folder = tmp_path / "class"
    for student in students:
        (folder / student).mkdir(parents=True)
        (folder / student / HW1.module).write_text(SOLUTION, encoding="utf-8")
    return folder


def test_a_class_folder_is_never_graded_without_the_sandbox(tmp_path):
    folder = _class_of_solutions(tmp_path, ("ada", "lee"))
    result = run("grade", HW1.id, folder, "--sandbox", "none", "--gradebook", tmp_path / "gradebook.sqlite3")
    assert result.exit_code == 1 and "only in the bwrap sandbox" in result.output
    assert not (tmp_path / "gradebook.sqlite3").exists()


def test_gradescope_metadata_gives_the_submission_time_and_the_result_says_so(tmp_path):
    path = tmp_path / HW1.module
    path.write_text(SOLUTION, encoding="utf-8")
    created = (HW1.due + dt.timedelta(days=2)).isoformat(timespec="microseconds")
    metadata = tmp_path / "submission_metadata.json"
    metadata.write_text(json.dumps({"id": 1, "created_at": created, "assignment": {"title": "hw1"}}), encoding="utf-8")
    result = run("grade", HW1.id, path, "--format", "json", "--metadata", metadata)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["days_late"] == 2 and report["submitted_at_source"] == "submission_metadata.json"


def test_file_times_decide_late_days_only_when_asked_for(tmp_path):
    path = tmp_path / HW1.module
    path.write_text(SOLUTION, encoding="utf-8")
    late = (HW1.due + dt.timedelta(days=2)).timestamp()
    os.utime(path, (late, late))
    unasked = json.loads(run("grade", HW1.id, path, "--format", "json").output)
    assert (unasked["days_late"], unasked["submitted_at_source"]) == (0, "none")
    asked = json.loads(run("grade", HW1.id, path, "--format", "json", "--file-times").output)
    assert (asked["days_late"], asked["submitted_at_source"]) == (2, "file time")


def test_build_with_another_course_file_writes_beside_it_and_catches_drift_in_every_generated_file(tmp_path):
    other = course_beside(tmp_path / "a")
    shutil.rmtree(tmp_path / "a" / "assignments")
    before = {p: p.stat().st_mtime_ns for p in (ASSIGNMENTS_DIR / HW1.id).iterdir()}
    built = run("build", HW1.id, "--course", other)
    assert built.exit_code == 0, built.output
    assert (tmp_path / "a" / "assignments" / HW1.id / HW1.module).is_file()
    assert {p: p.stat().st_mtime_ns for p in (ASSIGNMENTS_DIR / HW1.id).iterdir()} == before
    assert run("--course", other, "build", "--check-only", HW1.id).exit_code == 0
    data = yaml.safe_load(other.read_text(encoding="utf-8"))
    first = data["assignments"][0]["questions"][0]
    first["points"] += 1
    changed = tmp_path / "b" / other.name  # a new file: course files are read once per path and process
    changed.parent.mkdir()
    changed.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    for name in ("solutions", "hidden_tests", "assignments"):
        (changed.parent / name).symlink_to(other.parent / name, target_is_directory=True)
    drifted = run("build", "--check-only", HW1.id, "--course", changed)
    assert drifted.exit_code == 1
    for generated in ("README.md", HW1.notebook, "release.json"):
        assert f"{HW1.id}: changed: {generated}" in drifted.stderr
    assert run("build", HW1.id, "--course", changed).exit_code == 0
    readme = (tmp_path / "a" / "assignments" / HW1.id / "README.md").read_text(encoding="utf-8")
    assert f"| 1 | `{first['function']}` | {first['points']:g} |" in readme


def test_kit_writes_the_student_kit_wheel_and_names_it(tmp_path):
    from autograder.kit.wheel import kit_wheel_name

    result = run("kit", "--out", tmp_path / "dist")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "dist" / kit_wheel_name()).is_file()
    assert f"student kit -> {tmp_path / 'dist' / kit_wheel_name()}" in result.stdout


# --- --lang: the language of what students read -------------------------------------------

def _zh(message) -> str:
    from autograder.i18n import render

    return render(message, "zh")


@pytest.mark.slow
def test_check_lang_zh_prints_the_check_lines_in_chinese(stub_file):
    from autograder.i18n import msg

    english, chinese = run("check", HW1.id, stub_file), run("check", HW1.id, stub_file, "--lang", "zh")
    assert english.exit_code == chinese.exit_code == 1
    assert chinese.stdout.splitlines()[0] == _zh(msg("Public checks of {assignment} on {path}", assignment=HW1.id,
                                                     path=str(stub_file.resolve())))
    assert _zh(msg("FAIL")) in chinese.stdout and "FAIL" not in chinese.stdout and "FAIL" in english.stdout
    assert chinese.stdout.splitlines()[-1] == _zh(msg(
        "The grade comes from the hidden tests, which are broader: new random inputs on every run "
        "(other shapes, batch sizes, masks, dtypes, large scores), so passing these checks does not guarantee full marks."))


@pytest.mark.slow
def test_grade_lang_zh_writes_text_and_html_feedback_in_chinese_and_the_json_record_in_english(tmp_path):
    from autograder.i18n import msg

    buggy = tmp_path / HW1.module
    buggy.write_text(buggy_source(SOLUTION, BUGGY_STUDENTS[HW1.id][0]), encoding="utf-8")
    records = [json.loads(run("grade", HW1.id, buggy, "--lang", lang, "--format", "json", "--seed", "3").stdout)
               for lang in ("zh", "en")]
    for record in records:
        record.pop("execution_time")
    assert records[0] == records[1]
    score = msg("Score: {score} / {max_score}", score=f"{records[0]['score']:g}", max_score=f"{records[0]['max_score']:g}")
    text = run("grade", HW1.id, buggy, "--lang", "zh", "--seed", "3")
    assert text.exit_code == 0 and text.stdout.splitlines()[1] == _zh(score)
    assert "attention.no_scaling" in text.stdout and "Score:" not in text.stdout
    page = run("grade", HW1.id, buggy, "--lang", "zh", "--format", "html", "--seed", "3")
    assert '<html lang="zh">' in page.stdout and _zh(msg("What failed")) in page.stdout
    assert "Your attention does not divide the scores" in json.dumps(records[0])


def test_lang_must_be_a_language_of_the_course(tmp_path, stub_file):
    unknown = run("grade", HW1.id, stub_file, "--lang", "fr")
    assert unknown.exit_code == 2 and "'fr' is not one of" in unknown.output
    course = yaml.safe_load(DEFAULT_COURSE_FILE.read_text(encoding="utf-8"))
    course.update(languages=["en"], feedback_language="en")
    english_only = tmp_path / "course.yml"
    english_only.write_text(yaml.safe_dump(course, allow_unicode=True), encoding="utf-8")
    refused = run("--course", english_only, "check", HW1.id, stub_file, "--lang", "zh")
    assert refused.exit_code == 2 and "--lang zh: the course ships en" in refused.output


def test_lang_applies_to_one_submission_not_to_a_class_folder(tmp_path):
    folder = _class_of_solutions(tmp_path, ("ada", "ben"))
    refused = run("grade", HW1.id, folder, "--lang", "zh", "--gradebook", tmp_path / "g.sqlite3")
    assert refused.exit_code == 2 and "--lang apply to one submission" in refused.output


@pytest.mark.slow
def test_gradebook_feedback_lang_zh_writes_every_students_feedback_in_chinese(tmp_path):
    from autograder.i18n import msg

    folder = tmp_path / "class"
    (folder / "chen").mkdir(parents=True)
    (folder / "chen" / HW1.module).write_text(buggy_source(SOLUTION, BUGGY_STUDENTS[HW1.id][0]), encoding="utf-8")
    (folder / "lee.py").write_bytes(b"\x7fELF\x00\x01binary")
    db = tmp_path / "gradebook.sqlite3"
    assert run("grade", HW1.id, folder, "-j", "1", "--gradebook", db).exit_code == 0
    assert run("gradebook", "--gradebook", db, "--feedback", tmp_path / "zh", "--lang", "zh").exit_code == 0
    assert run("gradebook", "--gradebook", db, "--feedback", tmp_path / "en").exit_code == 0
    chen_zh = (tmp_path / "zh" / "chen" / HW1.id / "feedback.txt").read_text(encoding="utf-8")
    chen_en = (tmp_path / "en" / "chen" / HW1.id / "feedback.txt").read_text(encoding="utf-8")
    results = json.loads((tmp_path / "zh" / "chen" / HW1.id / "results.json").read_text(encoding="utf-8"))
    score = msg("Score: {score} / {max_score}", score=f"{results['score']:g}", max_score=f"{HW1.max_points:g}")
    assert chen_zh.splitlines()[1] == _zh(score) and chen_en.splitlines()[1] == score
    assert results["output"].startswith(_zh(score))
    lee = (tmp_path / "zh" / "lee" / HW1.id / "feedback.html").read_text(encoding="utf-8")
    assert '<html lang="zh">' in lee and _zh(msg("Your file could not be graded.")) in lee
