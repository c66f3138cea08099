"""Notebook and module both changed: ``check`` (and ``--watch``) checks the one saved last and says so in one line;
grading still refuses to choose and names the two files; ``--format json`` prints JSON on stdout even when nothing
could be checked."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from autograder import config
from autograder.build.markers import keep_solutions
from autograder.build.notebook import render_notebook
from autograder.check.api import check_submission, format_check
from autograder.check.command import SET_UP_PROBLEM_EXIT
from autograder.check.release import find_release
from autograder.config import load_course
from autograder.errors import AmbiguousSubmission
from autograder.grade.api import grade_submission
from autograder.kit.cli import main
from autograder.paths import ASSIGNMENTS_DIR, NOTEBOOK_SOURCE, SOLUTIONS_DIR
from tests.autograder.support import OutputLines

pytestmark = pytest.mark.slow
COURSE = load_course()
HW1 = COURSE.assignments[0]
CLI = str(Path(sys.executable).with_name("attn-course"))
BOTH = "are both changed: checking"


def _solution() -> str:
    return keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))


def _notebook(code: str) -> str:
    return render_notebook((SOLUTIONS_DIR / HW1.id / NOTEBOOK_SOURCE).read_text(encoding="utf-8"), code,
                           questions=HW1.questions)


def _saved(path: Path, text: str, at_ns: int) -> None:
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(at_ns, at_ns))


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A student's assignment folder (no course file) with a right module and a notebook with a wrong softmax."""
    monkeypatch.setattr(config, "DEFAULT_COURSE_FILE", tmp_path / "no course.yml")
    home = tmp_path / "my homework" / HW1.id
    shutil.copytree(ASSIGNMENTS_DIR / HW1.id, home, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    wrong = _solution().replace("scores = scores / math.sqrt(d_k)", "scores = scores")  # the scale forgotten
    assert wrong != _solution()
    now = time.time_ns()
    _saved(home / HW1.module, _solution(), now - 200_000_000_000)  # saved 200 s ago
    _saved(home / HW1.notebook, _notebook(wrong), now - 100_000_000_000)  # then the notebook
    return home


def test_the_file_saved_last_is_checked_and_named_in_one_line(folder):
    release = find_release(HW1.id, folder, None, folder)
    report = check_submission(release.course, HW1.id, folder, release=release)
    said = [note for note in report.notes if BOTH in note]
    assert report.path.endswith(HW1.notebook) and len(said) == 1 and "\n" not in said[0], format_check(report)
    assert said[0].startswith(f"{HW1.notebook} and {HW1.module}") and report.score < report.max_score
    _saved(folder / HW1.module, _solution(), time.time_ns())  # now the module is the newer
    again = check_submission(release.course, HW1.id, folder, release=release)
    assert again.path.endswith(HW1.module) and again.score == again.max_score, format_check(again)


def test_one_changed_file_is_checked_without_the_line(folder):
    shutil.copy(ASSIGNMENTS_DIR / HW1.id / HW1.notebook, folder / HW1.notebook)  # the notebook as handed out
    os.chdir(folder)
    done = CliRunner().invoke(main, ["check", HW1.id])
    assert done.exit_code == 0 and BOTH not in done.stdout, done.stdout


def test_grading_still_refuses_and_speaks_of_the_two_files(folder):
    with pytest.raises(AmbiguousSubmission) as refused:
        grade_submission(COURSE, HW1.id, folder, seed=1)
    said = str(refused.value)
    assert f"the files {HW1.notebook} and {HW1.module} in folder {HW1.id}" in said
    assert f"folder {HW1.id}/" not in said


def test_json_is_printed_on_stdout_when_nothing_can_be_checked(folder, tmp_path):
    os.chdir(tmp_path)  # outside any assignment folder: a set-up problem
    done = CliRunner().invoke(main, ["check", HW1.id, str(tmp_path), "--format", "json"])
    assert done.exit_code == SET_UP_PROBLEM_EXIT
    record = json.loads(done.stdout)
    assert record["passed"] is False and record["exit_code"] == SET_UP_PROBLEM_EXIT
    assert record["error"] and record["error"] in done.stderr


def test_watch_on_the_folder_follows_the_file_saved_last_and_keeps_going(folder):
    process = subprocess.Popen([CLI, "check", HW1.id, "--watch"], cwd=folder, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        lines = OutputLines(process)
        first = lines.until(lambda line: line.startswith("Watching for saves"))
        assert any(line.startswith(f"{HW1.notebook} and {HW1.module} {BOTH} {HW1.notebook}") for line in first), first
        (folder / HW1.module).write_text(_solution() + "\n# saved again\n", encoding="utf-8")
        second = lines.until(lambda line: "points on the public checks" in line)
        assert any(line.startswith(f"{HW1.module} and {HW1.notebook} {BOTH} {HW1.module}") for line in second), second
        assert f"{HW1.max_points:g}/{HW1.max_points:g} points" in second[-1]
        assert process.poll() is None, "still watching"
        process.send_signal(signal.SIGINT)
        assert "Stopped watching." in lines.rest(process)
    finally:
        process.kill()


def test_watch_says_what_cannot_be_checked_yet_and_keeps_watching(folder):
    """Two changed copies in subfolders (grading's rule refuses to choose): said, and the next save is checked."""
    for name in (HW1.module, HW1.notebook, HW1.notebook.replace(".ipynb", ".zh.ipynb")):
        (folder / name).unlink(missing_ok=True)
    for copy in ("mine", "old"):
        (folder / copy).mkdir()
        (folder / copy / HW1.module).write_text(_solution() + f"\n# {copy}\n", encoding="utf-8")
    process = subprocess.Popen([CLI, "check", HW1.id, "--watch"], cwd=folder, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        lines = OutputLines(process)
        first = lines.until(lambda line: line.startswith("Watching for saves"))
        assert any("are both changed from the release" in line for line in first), first
        shutil.rmtree(folder / "old")  # the student keeps one copy
        second = lines.until(lambda line: "points on the public checks" in line)
        assert f"{HW1.max_points:g}/{HW1.max_points:g} points" in second[-1], second
        assert process.poll() is None, "still watching"
        process.send_signal(signal.SIGINT)
        lines.rest(process)
    finally:
        process.kill()
