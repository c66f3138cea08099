"""``check --watch``: the loop alone with a fake clock, then the real command on a file the test saves."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.build.markers import keep_solutions
from autograder.check.watch import POLL_S, SETTLE_S, Clock, wait_for_change, watch, watched_files
from autograder.config import load_course
from autograder.file_stamp import stamps
from autograder.paths import ASSIGNMENTS_DIR, SOLUTIONS_DIR
from tests.autograder.support import OutputLines

CLI = str(Path(sys.executable).with_name("attn-course"))
HW1 = load_course().assignments[0]


class ScriptedClock(Clock):
    """A clock whose sleeps run the scripted actions, one per sleep, then do nothing; it counts the time slept."""

    def __init__(self, actions=()):
        super().__init__()
        object.__setattr__(self, "actions", list(actions))
        object.__setattr__(self, "slept", [])
        object.__setattr__(self, "sleep", self._sleep)

    def _sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        if self.actions:
            self.actions.pop(0)()
        if len(self.slept) > 1000:
            raise AssertionError("the loop never saw the change")


def _save(path: Path, text: str):
    """An action writing ``text`` to ``path`` with a new modification time."""
    def action():  # a later modification time even on a coarse clock
        path.write_text(text, encoding="utf-8")
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    return action


def test_a_file_is_watched_alone_and_a_folder_by_its_top_level_code_files(tmp_path):
    (tmp_path / "a.py").write_text("")
    (tmp_path / "b.ipynb").write_text("")
    (tmp_path / "notes.txt").write_text("")
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / "c.py").write_text("")
    assert watched_files(tmp_path / "a.py") == (tmp_path / "a.py",)
    assert watched_files(tmp_path) == (tmp_path / "a.py", tmp_path / "b.ipynb")
    assert watched_files(tmp_path, str(tmp_path / "deep" / "c.py"))[-1] == tmp_path / "deep" / "c.py"


def test_a_change_is_returned_only_once_it_has_held_for_the_settle_interval(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("x = 0")
    seen = stamps([module])
    nothing = lambda: None  # noqa: E731
    # poll (no change), poll (saved), settle (saved again: not settled), poll, settle (held)
    clock = ScriptedClock([nothing, _save(module, "x = 1"), _save(module, "x = 22"), nothing, nothing])
    settled = wait_for_change(lambda: (module,), seen, clock)
    assert settled == stamps([module]) != seen
    assert clock.slept == [POLL_S, POLL_S, SETTLE_S, POLL_S, SETTLE_S]


def test_watch_runs_again_after_each_save_and_passes_the_run_number(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("v1")
    reports, shown = iter(["first", "second", "third"]), []
    clock = ScriptedClock([_save(module, "v2"), lambda: None, lambda: None, _save(module, "v3")])
    last = watch(lambda: next(reports), lambda report, number: shown.append((number, report)),
                 lambda report: (module,), clock, runs=3)
    assert shown == [(1, "first"), (2, "second"), (3, "third")]
    assert last == "third"


def test_a_save_during_a_run_starts_the_next_run(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("v1")
    runs = []

    def run_once():
        runs.append(module.read_text())
        if len(runs) == 1:
            _save(module, "saved while checking")()
        return len(runs)

    watch(run_once, lambda report, number: None, lambda report: (module,), ScriptedClock(), runs=2)
    assert runs == ["v1", "saved while checking"]


@pytest.fixture
def student_folder(tmp_path) -> Path:
    """The hw1 release as a student has it, with the stub not yet filled in."""
    folder = tmp_path / "hw1"
    shutil.copytree(ASSIGNMENTS_DIR / HW1.id, folder, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    return folder


def _solution() -> str:
    return keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))


def test_check_watch_reports_the_stub_then_the_saved_solution_and_ctrl_c_exits_with_the_last_status(student_folder):
    process = subprocess.Popen([CLI, "check", HW1.id, HW1.module, "--watch"], cwd=student_folder,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = OutputLines(process)
        first = lines.until(lambda line: line.startswith("Watching for saves"))
        assert any(f"0/{HW1.max_points:g} points on the public checks" in line for line in first)
        (student_folder / HW1.module).write_text(_solution(), encoding="utf-8")
        second = lines.until(lambda line: "points on the public checks" in line)
        assert "saved, checking again" in second[0]
        assert f"{HW1.max_points:g}/{HW1.max_points:g} points on the public checks" in second[-1]
        process.send_signal(signal.SIGINT)
        assert "Stopped watching." in lines.rest(process)
        assert process.returncode == 0
    finally:
        process.kill()


def test_check_watch_as_json_prints_one_line_per_run_and_ends_failing_when_the_last_run_fails(student_folder):
    module = student_folder / HW1.module
    module.write_text(_solution(), encoding="utf-8")
    process = subprocess.Popen([CLI, "check", HW1.id, ".", "--watch", "--format", "json"], cwd=student_folder,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = OutputLines(process)
        first = json.loads(lines.until(lambda line: True)[0])
        unscaled = _solution().replace("scores = scores / math.sqrt(d_k)", "scores = scores")
        assert unscaled != _solution()
        module.write_text(unscaled, encoding="utf-8")  # a bug saved: the scale forgotten
        second = json.loads(lines.until(lambda line: True)[0])
        assert (first["passed"], second["passed"]) == (True, False)
        assert second["score"] < first["score"] == first["max_score"]
        process.send_signal(signal.SIGINT)
        assert process.wait(OutputLines.DEADLINE_S) == 1
    finally:
        process.kill()


def test_a_save_right_after_the_report_is_seen_when_the_run_names_a_file_not_watched_before(tmp_path):
    module, found = tmp_path / "m.py", tmp_path / "deep.py"
    module.write_text("v1")
    found.write_text("")
    saves = iter([_save(module, "saved as soon as the report showed"), lambda: None])
    runs = []
    watch(lambda: runs.append(module.read_text()) or len(runs), lambda report, number: next(saves)(),
          lambda report: (module,) if report is None else (module, found), ScriptedClock(), runs=2)
    assert runs == ["v1", "saved as soon as the report showed"]


def test_a_ctrl_c_whose_exception_was_lost_still_stops_the_loop_at_the_next_poll(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("v1")
    requested = iter([False, False, True])
    clock = ScriptedClock()
    object.__setattr__(clock, "stopped", lambda: next(requested))
    with pytest.raises(KeyboardInterrupt):
        wait_for_change(lambda: (module,), stamps([module]), clock)
    assert clock.slept == [POLL_S, POLL_S]
