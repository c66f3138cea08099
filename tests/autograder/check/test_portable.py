"""The portable child: where the sandbox cannot run, check runs the student's code in a plain child, bounded the same."""

from __future__ import annotations

import os
import sys
import textwrap
import time

import numpy as np
import pytest

from autograder.build.markers import keep_solutions
from autograder.check import pipes, portable, runner
from autograder.check.api import check_submission, format_check
from autograder.check.portable import PortableSubmission
from autograder.check.runner import CheckRunner, check_runner
from autograder.config import Defaults, load_course
from autograder.errors import CallTimeout, GraderError, StudentException, WorkerCrashed
from autograder.paths import SOLUTIONS_DIR
from autograder.sandbox import isolation

COURSE = load_course()
HW1 = COURSE.assignment("hw1_scaled_attention")
LIMITS = Defaults(call_timeout_s=1.0, submission_timeout_s=30.0, output_limit_kb=4)
#: What stopping an endless call may cost beyond its limit on a slow machine (the kill, a new child's start).
SLACK_S = 8.0
NOTE_START = "No sandbox here ("


def _note(report) -> list[str]:
    return [note for note in report.notes if str(note).startswith(NOTE_START)]


def test_without_bwrap_or_landlock_check_takes_the_portable_child_and_says_why(monkeypatch):
    def refuse(limits):
        raise GraderError("refusing to grade without the sandbox (no bwrap executable was found)")

    monkeypatch.setattr(isolation, "choose_isolation", refuse)
    chosen = check_runner(COURSE.defaults)
    assert chosen.portable and chosen.isolation == portable.PORTABLE
    assert str(chosen.note).startswith(NOTE_START) and "bubblewrap cannot run on this system" in str(chosen.note)


@pytest.mark.parametrize("platform", ["darwin", "win32"])
def test_off_linux_check_never_asks_for_the_sandbox(monkeypatch, platform):
    def must_not_be_called(limits):
        raise AssertionError("choose_isolation was asked off Linux")

    monkeypatch.setattr(isolation, "choose_isolation", must_not_be_called)
    monkeypatch.setattr(runner.sys, "platform", platform)
    chosen = check_runner(COURSE.defaults)
    assert chosen.portable and "bubblewrap runs on Linux only" in str(chosen.note)


def test_attn_sandbox_portable_asks_for_the_child_and_the_sandbox_is_kept_where_it_works(monkeypatch):
    monkeypatch.setenv(isolation.ISOLATION_ENV, runner.PORTABLE_REQUEST)
    assert check_runner(COURSE.defaults).portable
    monkeypatch.delenv(isolation.ISOLATION_ENV)
    monkeypatch.setattr(isolation, "choose_isolation", lambda limits: isolation.Isolation.BWRAP)
    assert check_runner(COURSE.defaults) == CheckRunner("bwrap")


@pytest.fixture
def started():
    made: list[PortableSubmission] = []

    def start(source: str, limits: Defaults = LIMITS) -> PortableSubmission:
        submission = PortableSubmission("student", textwrap.dedent(source), limits, filename="student.py")
        made.append(submission)
        submission.start()
        return submission

    yield start
    for submission in made:
        submission.close()


def test_the_portable_child_answers_calls_like_the_sandbox(started):
    submission = started("""
        import numpy as np
        def double(x):
            print("hello from the child")
            return 2 * x
        def boom(x):
            raise ValueError("no")
    """)
    assert np.array_equal(submission.call("double", np.arange(3.0)), [0.0, 2.0, 4.0])
    with pytest.raises(StudentException, match="ValueError: no"):
        submission.call("boom", 1)
    assert submission.isolation == portable.PORTABLE and submission.worker_pid != os.getpid()


def test_an_endless_call_is_stopped_at_the_call_limit_the_child_killed_and_the_next_call_answered(started):
    submission = started("""
        def spin(x):
            while True:
                pass
        def one(x):
            return 1
    """)
    first = submission.worker_pid
    began = time.monotonic()
    with pytest.raises(CallTimeout, match=r"spin\(\) did not finish within 1 s"):
        submission.call("spin", 1)
    assert LIMITS.call_timeout_s <= time.monotonic() - began < LIMITS.call_timeout_s + SLACK_S
    assert not _alive(first)
    assert int(submission.call("one", 1)) == 1 and submission.worker_pid != first


def test_a_child_that_dies_is_a_crash_not_a_hang(started):
    submission = started("""
        import os
        def die(x):
            os._exit(7)
    """)
    with pytest.raises(WorkerCrashed):
        submission.call("die", 1)


def _alive(pid: int) -> bool:
    if sys.platform.startswith("linux"):
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    return True  # elsewhere not looked at


def test_pipes_wait_with_a_deadline_and_say_when_the_child_is_gone(tmp_path):
    silent = pipes.ChildPipes([sys.executable, "-c", "import time; time.sleep(600)"], cwd=str(tmp_path))
    try:
        began = time.monotonic()
        with pytest.raises(pipes.Expired):
            silent.read_exact(1, time.monotonic() + 0.3)
        assert time.monotonic() - began < SLACK_S
    finally:
        silent.kill()
        silent.close()
    assert not silent.alive()
    said = pipes.ChildPipes([sys.executable, "-c", "import sys; sys.stdout.buffer.write(b'ab')"], cwd=str(tmp_path))
    try:
        assert said.read_exact(2, time.monotonic() + 30) == b"ab"
        with pytest.raises(pipes.Gone):
            said.read_exact(1, time.monotonic() + 30)
    finally:
        said.kill()
        said.close()


@pytest.mark.slow
def test_check_in_a_folder_with_spaces_and_a_backslash_passes_a_solution_in_the_portable_child(tmp_path, monkeypatch):
    monkeypatch.setenv(isolation.ISOLATION_ENV, runner.PORTABLE_REQUEST)
    folder = tmp_path / "my work" / ("back\\slash" if os.name != "nt" else "back slash")
    folder.mkdir(parents=True)
    solution = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
    (folder / HW1.module).write_text(solution, encoding="utf-8")
    report = check_submission(COURSE, HW1.id, folder)
    assert report.score == HW1.max_points, format_check(report)
    assert len(_note(report)) == 1


def test_the_portable_child_names_the_helper_that_was_running_when_stopped(started):
    submission = started("""
        def dot_score(s, h):
            while True:
                pass
        def general_score(s, h):
            return dot_score(s, h)
    """)
    with pytest.raises(CallTimeout, match=r"general_score\(\) did not finish within 1 s: it was running dot_score\(\)"):
        submission.call("general_score", 1, 2)


def test_the_child_of_a_check_killed_from_outside_stops_even_inside_an_endless_function(tmp_path):
    """A notebook kernel restarted or a terminal closed mid-check: its portable child must not spin on."""
    import subprocess

    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent("""
        import os, sys, threading, time
        from autograder.check.portable import PortableSubmission
        from autograder.config import Defaults

        child = PortableSubmission("student", "def spin(x):\\n    while True:\\n        pass\\n",
                                   Defaults(call_timeout_s=300.0, submission_timeout_s=600.0), filename="student.py")
        child.start()
        print(child.worker_pid, flush=True)
        threading.Thread(target=child.call, args=("spin", 1), daemon=True).start()
        time.sleep(1.0)  # the child is inside spin now
        os._exit(0)  # the caller is gone without a word
    """), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    worker = int(done.stdout.split()[0])
    deadline = time.monotonic() + SLACK_S
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(worker)
