"""The head start: a worker started from the last run's plan is taken only when the limits and isolation agree."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from autograder.build.markers import keep_solutions
from autograder.config import Defaults, load_course
from autograder.paths import SOLUTIONS_DIR
from autograder import cli
from autograder.commands import grade as grade_command
from autograder.sandbox import headstart, isolation
from autograder.sandbox.headstart import LaunchLimits
from autograder.sandbox.isolation import Isolation

from .conftest import needs_bwrap

HW1 = load_course().assignment("hw1_scaled_attention")
LIMITS = Defaults(memory_mb=320, max_processes=3, cpu_time_s=12, max_file_size_mb=2, tmp_max_files=200)


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """A cache folder of the test's own, and no early worker left behind."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(headstart.DISABLE_ENV, raising=False)
    monkeypatch.delenv(isolation.ISOLATION_ENV, raising=False)
    yield
    headstart.discard()


def early_worker():
    return None if headstart._early is None else headstart._early[1]


def started_from_plan(argv=("grade", "hw1", "f.py")):
    """The worker a run with ``argv`` starts early, after a run with ``LIMITS`` wrote its plan."""
    headstart.write_plan(LaunchLimits.of(LIMITS))
    headstart.start_early(list(argv))
    return early_worker()


@pytest.mark.parametrize(("argv", "expected"), [
    (["grade", "hw1", "f.py"], "grade"),
    (["--course", "other.yml", "-q", "check", "hw1"], "check"),
    (["-q", "--course", "grade", "gradebook"], "gradebook"),  # a course file named "grade"
    (["--help"], None),
    ([], None),
])
def test_the_subcommand_is_found_after_the_top_level_options(argv, expected):
    assert headstart.subcommand(argv) == expected


def test_a_plan_is_read_back_as_written_and_anything_else_reads_as_none():
    assert headstart.read_plan() is None
    plan = LaunchLimits.of(LIMITS)
    headstart.write_plan(plan)
    assert headstart.read_plan() == LaunchLimits(320, 3, 12, 2, 200, "bwrap")
    headstart.plan_file().write_text(json.dumps({"memory_mb": 1}), encoding="utf-8")
    assert headstart.read_plan() is None
    headstart.plan_file().write_text("{not json", encoding="utf-8")
    assert headstart.read_plan() is None


@pytest.mark.parametrize("argv", [["build"], ["grade", "--help"], ["check", "-h"], ["trace"]])
def test_commands_that_grade_nothing_start_no_worker(argv):
    assert started_from_plan(argv) is None


def test_without_a_plan_no_worker_is_started_and_the_run_writes_one():
    headstart.start_early(["grade", "hw1", "f.py"])
    assert early_worker() is None
    assert headstart.claim(LIMITS, Isolation.BWRAP) is None
    assert headstart.read_plan() == LaunchLimits.of(LIMITS)


@needs_bwrap
def test_a_worker_started_with_the_same_limits_is_taken_and_works():
    started = started_from_plan()
    assert started is not None and started.alive()
    taken = headstart.claim(LIMITS, Isolation.BWRAP)
    try:
        assert taken is started
        assert early_worker() is None
    finally:
        taken.kill()
        taken.close_pipes()


@needs_bwrap
@pytest.mark.parametrize("changed", [{"memory_mb": 640}, {"max_processes": 8}, {"tmp_max_files": 50}])
def test_a_worker_started_with_other_limits_is_killed_and_the_plan_rewritten(changed):
    started = started_from_plan(["check", "hw1"])
    assert started is not None
    now = LIMITS.model_copy(update=changed)
    assert headstart.claim(now, Isolation.BWRAP) is None
    assert not started.alive()
    assert headstart.read_plan() == LaunchLimits.of(now)


@needs_bwrap
def test_a_worker_is_not_taken_for_another_isolation():
    started = started_from_plan()
    assert headstart.claim(LIMITS, Isolation.NONE) is None
    assert not started.alive()


def test_no_head_start_when_turned_off_or_when_the_environment_asks_for_no_sandbox(monkeypatch):
    monkeypatch.setenv(isolation.ISOLATION_ENV, "none")
    assert started_from_plan() is None
    monkeypatch.delenv(isolation.ISOLATION_ENV)
    monkeypatch.setenv(headstart.DISABLE_ENV, "1")
    assert started_from_plan() is None


@needs_bwrap
def test_grading_a_class_folder_discards_the_early_worker_before_the_batch(tmp_path, monkeypatch):
    started = started_from_plan(["grade", HW1.id, "class"])
    assert started is not None
    seen = []
    monkeypatch.setattr(grade_command, "_grade_class", lambda *args: seen.append((early_worker(), started.alive())))
    (tmp_path / "class" / "ada").mkdir(parents=True)
    result = CliRunner().invoke(cli.main, ["grade", HW1.id, str(tmp_path / "class"), "--batch"])
    assert result.exit_code == 0, result.output
    assert seen == [(None, False)]


def test_the_bwrap_check_takes_the_outcome_of_the_one_started_early(monkeypatch):
    """The self-test started ahead is the one judged (a failing one stays failing when a passing one follows)."""
    failing = [sys.executable, "-c", "import sys; sys.exit('no user namespaces here')"]
    monkeypatch.setattr(isolation, "bwrap_executable", lambda: "bwrap")
    monkeypatch.setattr(isolation, "_bwrap_self_test_command", lambda executable: failing)
    isolation.bwrap_problem.cache_clear()
    try:
        isolation.start_bwrap_self_test()
        monkeypatch.setattr(isolation, "_bwrap_self_test_command", lambda executable: [sys.executable, "-c", "pass"])
        assert isolation.bwrap_problem() == "bwrap cannot start the worker: no user namespaces here"
        assert isolation._early_bwrap_test is None
    finally:
        isolation.bwrap_problem.cache_clear()


@needs_bwrap
def test_the_command_line_grades_alike_with_a_stale_plan_and_with_the_plan_it_wrote(tmp_path):
    """End to end: a plan with other limits (its worker killed, the plan replaced), then the plan written (taken)."""
    solution = tmp_path / HW1.module
    solution.write_text(keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8")), encoding="utf-8")
    command = [str(Path(sys.executable).with_name("attn-course")), "grade", HW1.id, str(solution), "--format", "json"]
    stale = LaunchLimits(999, 9, 99, 9, 9, "bwrap")
    headstart.write_plan(stale)
    scores = []
    for _ in range(2):
        result = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
        scores.append((result["score"], result["max_score"]))
        assert headstart.read_plan() == LaunchLimits.of(load_course().defaults)
    assert scores[0] == scores[1] and scores[0][0] == scores[0][1]
