"""Reading without fork (macOS, Windows): a spawned interpreter with the same deadline, answering in JSON."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.errors import LoadFailed
from autograder.paths import ASSIGNMENTS_DIR, SOLUTIONS_DIR
from autograder.submission import bounded, spawned
from autograder.submission.bounded import IN_PROCESS_BYTES, read_bounded, small_input
from autograder.submission.locate import ReleaseStubs, release_stubs
from autograder.submission.spawned import Reading

COURSE = load_course()
HW1 = COURSE.assignment("hw1_scaled_attention")
#: The reading's deadline here: far more than a reading takes, far less than one that never ends.
DEADLINE_S = 20.0
#: What a killed child may cost on a slow machine (its start, the kill, the reaping).
FINISH_S = 10.0


@pytest.fixture
def no_fork(monkeypatch) -> list[list[str]]:
    """Reading as on macOS or Windows (no fork); the commands of the children spawned."""
    monkeypatch.setattr(bounded, "FORKS", False)
    started: list[list[str]] = []
    run = subprocess.run

    def recording_run(command, *args, **kwargs):
        started.append(list(command))
        return run(command, *args, **kwargs)

    monkeypatch.setattr(spawned.subprocess, "run", recording_run)
    return started


def _large_module(tmp_path, name: str = "my code dir") -> Reading:
    """A solution module beyond :data:`IN_PROCESS_BYTES`, in a folder with a space and a backslash in its name."""
    folder = tmp_path / name / "back\\slash"
    folder.mkdir(parents=True)
    solution = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
    (folder / HW1.module).write_text(solution + ("#" * 79 + "\n") * (IN_PROCESS_BYTES // 80 + 10), encoding="utf-8")
    assert not small_input(folder / HW1.module)
    stubs = release_stubs(ASSIGNMENTS_DIR / HW1.id, HW1.module, HW1.notebook, HW1.functions)
    return Reading(folder / HW1.module, HW1.module, HW1.notebook, HW1.functions, stubs, ())


def test_without_fork_a_large_submission_is_read_in_a_spawned_child_the_same_as_here(no_fork, tmp_path):
    reading = _large_module(tmp_path)
    source = read_bounded(reading, DEADLINE_S, HW1.module)
    assert len(no_fork) == 1 and no_fork[0][0] == sys.executable
    assert source == reading()


def test_the_reading_goes_over_the_wire_whole():
    reading = Reading(spawned.Path("a b\\c.py"), "m.py", "n.ipynb", ("f", "g"), ReleaseStubs("x", None, ("f",), "d1", None),
                      (spawned.Path("z"),))
    assert Reading.from_wire(reading.to_wire()) == reading


def test_without_fork_a_reading_past_its_deadline_is_killed_and_too_complex(no_fork, monkeypatch, tmp_path):
    reading = _large_module(tmp_path)
    monkeypatch.setattr(spawned, "child_command", lambda: [sys.executable, "-c", "import time; time.sleep(600)"])
    started = time.monotonic()
    with pytest.raises(LoadFailed) as caught:
        read_bounded(reading, 1.0, HW1.module)
    assert time.monotonic() - started < FINISH_S
    assert caught.value.student_message == f"{HW1.module} is too large or too complex to grade: reading it took longer than 1 s"


def test_without_fork_a_reader_that_dies_is_a_result_saying_how(no_fork, monkeypatch, tmp_path):
    reading = _large_module(tmp_path)
    monkeypatch.setattr(spawned, "child_command", lambda: [sys.executable, "-c", "import sys; sys.stdout.write('{'); sys.exit(3)"])
    with pytest.raises(LoadFailed) as caught:
        read_bounded(reading, DEADLINE_S, HW1.module)
    assert caught.value.student_message == f"{HW1.module} could not be read: the grader's reader stopped (exit status 3)"


def test_without_fork_what_does_not_parse_fails_in_the_child_with_the_parsers_message(no_fork, tmp_path):
    reading = _large_module(tmp_path)
    reading.path.write_text(reading.path.read_text(encoding="utf-8") + "def broken(:\n", encoding="utf-8")
    with pytest.raises(LoadFailed) as here:
        reading()
    with pytest.raises(LoadFailed) as there:
        read_bounded(reading, DEADLINE_S, HW1.module)
    assert len(no_fork) == 1 and there.value.student_message == here.value.student_message
