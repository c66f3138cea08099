"""Plain `pytest` in a student release runs the public checks: red on the stub, green on the solution."""

import shutil
import subprocess
import sys

import pytest

from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.paths import ASSIGNMENTS_DIR, SOLUTIONS_DIR

pytestmark = pytest.mark.slow
COURSE = load_course()


def _pytest_in(folder):
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=folder, capture_output=True, text=True,
    )


@pytest.mark.parametrize("assignment", COURSE.assignments, ids=lambda a: a.id)
def test_stub_fails_and_solution_passes_with_plain_pytest(assignment, tmp_path):
    release = tmp_path / assignment.id
    shutil.copytree(ASSIGNMENTS_DIR / assignment.id, release)
    stub_run = _pytest_in(release)
    assert stub_run.returncode == 1
    assert "not implemented yet" in stub_run.stdout
    master = (SOLUTIONS_DIR / assignment.id / assignment.module).read_text(encoding="utf-8")
    (release / assignment.module).write_text(keep_solutions(master), encoding="utf-8")
    solution_run = _pytest_in(release)
    assert solution_run.returncode == 0, solution_run.stdout[-2000:]
    assert " passed" in solution_run.stdout and "failed" not in solution_run.stdout
