"""read_bounded: the reading runs in a forked child with a deadline and a memory bound, and says how it ended."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from autograder.errors import AmbiguousSubmission, GraderError, LoadFailed
from autograder.i18n import Message, msg, render
from autograder.submission import bounded
from autograder.submission.bounded import READ_MEMORY_BYTES, read_bounded
from autograder.submission.locate import SubmissionSource

pytestmark = pytest.mark.skipif(not bounded.FORKS, reason="the reading is forked on Linux only")

NOTE = msg("cell {cell} (the `{function}` cell) does not parse: {error}", cell="3", function="softmax", error="invalid syntax")
SOURCE = SubmissionSource("scaled_attention", "def softmax(x):\n    return '\\ud800'\n", "nb.ipynb", "notebook", (NOTE,),
                          "/tmp/nb.ipynb")
#: Far more than any reading here takes; far less than a reading that never ends.
DEADLINE_S = 1.0
#: What a killed reading may cost on a slow machine, the kill and the reaping included.
FINISH_S = 10.0


@pytest.fixture
def forked(monkeypatch) -> list[int]:
    """The pids of the children the reading forks."""
    pids: list[int] = []
    fork = os.fork

    def recording_fork():
        pid = fork()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recording_fork)
    return pids


def _gone(pid: int) -> bool:
    """Whether the child is reaped: no process, not even a zombie, has its pid."""
    return not Path(f"/proc/{pid}").exists()


def _load_failure(read, seconds: float = DEADLINE_S) -> Message:
    with pytest.raises(LoadFailed) as caught:
        read_bounded(read, seconds, "nb.ipynb")
    return caught.value.student_message


def test_what_the_reading_returns_comes_back_whole_notes_still_messages(forked):
    source = read_bounded(lambda: SOURCE, DEADLINE_S, "nb.ipynb")
    assert source == SOURCE and source.real_path == SOURCE.real_path
    assert source.notes[0].msgid == NOTE.msgid and render(source.notes[0], "zh") == render(NOTE, "zh") != NOTE
    assert len(forked) == 1 and _gone(forked[0])


def test_the_reading_runs_in_the_child_and_leaves_the_grader_as_it_was():
    touched: list[str] = []

    def read():
        touched.append("read")
        return SOURCE

    read_bounded(read, DEADLINE_S, "nb.ipynb")
    assert touched == []


def test_a_load_failure_comes_back_as_the_same_message():
    def read():
        raise LoadFailed(msg("{file} is a binary file, not Python source or a notebook", file="nb.ipynb"))

    message = _load_failure(read)
    assert message.msgid == "{file} is a binary file, not Python source or a notebook" and message.facts == {"file": "nb.ipynb"}


def test_an_ambiguous_submission_comes_back_as_one():
    def read():
        raise AmbiguousSubmission("a/x.py and b/x.py are both changed from the release")

    with pytest.raises(AmbiguousSubmission, match="both changed"):
        read_bounded(read, DEADLINE_S, "sub.zip")


def test_a_grader_bug_in_the_reading_is_a_grader_error_naming_it():
    def read():
        raise KeyError("cells")

    with pytest.raises(GraderError, match="KeyError") as caught:
        read_bounded(read, DEADLINE_S, "nb.ipynb")
    assert not isinstance(caught.value, AmbiguousSubmission)


def test_a_reading_past_its_deadline_is_killed_and_too_complex_to_grade(forked):
    started = time.monotonic()
    message = _load_failure(lambda: time.sleep(600))
    assert time.monotonic() - started < FINISH_S
    assert message == f"nb.ipynb is too large or too complex to grade: reading it took longer than {DEADLINE_S:g} s"
    assert _gone(forked[0])


def test_a_reader_that_dies_is_a_result_saying_how(forked):
    message = _load_failure(lambda: os.kill(os.getpid(), signal.SIGKILL))
    assert message == "nb.ipynb could not be read: the grader's reader stopped (signal SIGKILL)"
    assert _gone(forked[0])


def test_a_reading_past_its_memory_is_a_result_not_the_graders_memory():
    message = _load_failure(lambda: bytearray(2 * READ_MEMORY_BYTES), seconds=FINISH_S)
    assert message == "nb.ipynb could not be read: parsing it needs more memory than the grader has"


def test_without_fork_the_reading_runs_in_the_process(monkeypatch):
    monkeypatch.setattr(bounded, "FORKS", False)
    touched: list[str] = []

    def read():
        touched.append("read")
        return SOURCE

    assert read_bounded(read, DEADLINE_S, "nb.ipynb") is SOURCE and touched == ["read"]


def test_small_files_and_folders_are_read_in_the_process_and_the_rest_in_a_child(tmp_path):
    from autograder.submission.bounded import IN_PROCESS_BYTES, small_input

    small = tmp_path / "small.py"
    small.write_text("x = 1\n")
    large = tmp_path / "large.py"
    large.write_bytes(b"#" * (IN_PROCESS_BYTES + 1))
    archive = tmp_path / "broken.zip"
    archive.write_bytes(b"PK")
    import zipfile

    small_zip, large_zip = tmp_path / "small.zip", tmp_path / "large.zip"
    with zipfile.ZipFile(small_zip, "w") as z:
        z.writestr("a.py", "x = 1\n")
    with zipfile.ZipFile(large_zip, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("a.py", "#" * (4 * IN_PROCESS_BYTES))  # a few KiB on disk, more when unpacked
    assert small_input(small_zip) and large_zip.stat().st_size < IN_PROCESS_BYTES and not small_input(large_zip)
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "a.py").write_bytes(b"#" * (IN_PROCESS_BYTES // 2))
    assert small_input(small) and small_input(folder)
    (folder / "b.py").write_bytes(b"#" * (IN_PROCESS_BYTES // 2 + 1))
    assert not small_input(large) and not small_input(archive) and not small_input(folder)
    assert not small_input(tmp_path / "missing.py")
