"""An instructor's ordinary edits never break the suite: in a copy of the project, change a question's points and
an assignment's due date, add a question with ``attn-course new question`` (its TODOs filled as an instructor
would, :mod:`tests.autograder.scaffold.sliding_window`), rebuild, and the course-dependent tests pass on the copy.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.paths import PROJECT_ROOT
from tests.autograder.scaffold import sliding_window

COURSE = load_course()
FIRST = COURSE.assignments[0]
#: The tests that read the course: its points, due dates, questions, masters, releases and catalog.
COURSE_DEPENDENT = (
    "tests/attn_reference/test_contract.py",
    "tests/autograder/mutants/test_catalog.py",
    "tests/autograder/diagnose/test_registry.py",
    "tests/solutions/test_agreement.py",
    "tests/solutions/test_translations.py",
    "tests/autograder/i18n/test_maintain.py",
    "tests/autograder/build",
    "tests/autograder/test_course_check.py",
    "tests/autograder/export/test_runtime.py",
    "tests/autograder/export/test_cases.py",
    "tests/autograder/report/test_text.py",
    "tests/benchmarks/test_diagnosis_coverage.py",
)
#: Of the slower course-dependent tests, those that read the first assignment's questions and points.
SELECTED = (
    ("tests/autograder/test_cli.py", "build or points or late"),
    ("tests/autograder/grade/test_test_power.py", f"reference_gets_full_marks or {FIRST.id} or {sliding_window.FUNCTION}"),
    ("tests/solutions/test_full_marks.py", FIRST.id),
)
RUN_TIMEOUT_S = 900


def _copy_project(root: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=PROJECT_ROOT, capture_output=True,
                           text=True, check=True).stdout.splitlines()
    for name in files:
        source = PROJECT_ROOT / name
        if source.is_file():
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())


def _edited_course(text: str) -> str:
    """course.yml with the first question worth one point more and the first assignment due a week later."""
    question = FIRST.questions[0]
    line = re.compile(rf"\{{function: {question.function}, points: {question.points:g}\}}")
    assert line.search(text), "the first question is not written as {function: ..., points: ...}"
    text = line.sub(f"{{function: {question.function}, points: {question.points + 1:g}}}", text, count=1)
    later = (FIRST.due + dt.timedelta(days=7)).isoformat()
    block = text.index(f"id: {FIRST.id}")
    due = re.compile(r"(due: )(\S+)")
    match = due.search(text, block)
    return text[: match.start(2)] + later + text[match.end(2):]


def _run(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True, text=True,
                          timeout=RUN_TIMEOUT_S, check=False)


@pytest.fixture(scope="module")
def edited(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("edited") / "course"
    _copy_project(root)
    course_file = root / DEFAULT_COURSE_FILE.name
    course_file.write_text(_edited_course(course_file.read_text(encoding="utf-8")), encoding="utf-8")
    scaffold = _run(root, "-m", "autograder.cli", "-q", "new", "question", FIRST.id, sliding_window.FUNCTION,
                    "--args", ", ".join(sliding_window.PARAMETERS))
    assert scaffold.returncode == 0, scaffold.stderr
    edited_files = sliding_window.fill(root, FIRST.id, FIRST.module)
    assert len(edited_files) <= 5  # four, and the translated docstrings in a course with Chinese
    build = _run(root, "-m", "autograder.cli", "build")
    assert build.returncode == 0, build.stderr
    return root


def test_the_copy_is_edited_and_its_question_scaffolded(edited):
    course = load_course(edited / DEFAULT_COURSE_FILE.name)
    first = course.assignments[0]
    assert first.functions[-1] == sliding_window.FUNCTION and first.questions[0].points == FIRST.questions[0].points + 1
    assert first.due == FIRST.due + dt.timedelta(days=7)
    gate = _run(edited, "-m", "autograder.cli", "build", "--check-only")
    assert gate.returncode == 0, gate.stdout + gate.stderr


def test_the_course_dependent_tests_pass_on_the_edited_copy(edited):
    done = _run(edited, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *COURSE_DEPENDENT)
    assert done.returncode == 0, done.stdout[-4000:]


@pytest.mark.parametrize(("path", "selection"), SELECTED, ids=[path for path, _ in SELECTED])
def test_the_slower_course_dependent_tests_pass_on_the_edited_copy(edited, path, selection):
    done = _run(edited, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", path, "-k", selection)
    assert done.returncode == 0, done.stdout[-4000:]


def test_the_new_question_is_checked_and_graded_like_the_others(edited, tmp_path):
    """The solution, in a copy of the rebuilt release, passes the new question's public check and gets its points."""
    import json
    import shutil

    from autograder.build.markers import keep_solutions

    course = load_course(edited / DEFAULT_COURSE_FILE.name)
    first = course.assignments[0]
    folder = tmp_path / first.id
    shutil.copytree(course.layout.release(first.id), folder)
    (folder / first.module).write_text(keep_solutions(course.layout.master(first).read_text(encoding="utf-8")),
                                       encoding="utf-8")
    checked = subprocess.run([sys.executable, "-m", "autograder.cli", "check", first.id, "--format", "json"], cwd=folder,
                             env={**os.environ, "PYTHONPATH": str(edited)}, capture_output=True, text=True,
                             timeout=RUN_TIMEOUT_S, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert sliding_window.FUNCTION in checked.stdout and json.loads(checked.stdout)["passed"]
    graded = _run(edited, "-m", "autograder.cli", "grade", first.id, str(folder / first.module), "--format", "json")
    assert graded.returncode == 0, graded.stdout + graded.stderr
    new = next(q for q in json.loads(graded.stdout)["questions"] if q["function"] == sliding_window.FUNCTION)
    assert new["score"] == new["max_score"] == course.assignment(first.id).questions[-1].points
