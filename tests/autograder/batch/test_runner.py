"""Batches end to end: bad entries, resuming, a killed batch, a grading process that dies."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import pytest

from autograder.batch.entries import Entry, content_hash
from autograder.batch.runner import GradingProcess, grade_batch, job_cpus
from autograder.build.markers import keep_solutions
from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.demo.sample_class import write_sample_class
from autograder.gradebook import Gradebook
from autograder.paths import SOLUTIONS_DIR
from tests.autograder.support import course_beside, descendants

pytestmark = pytest.mark.slow

COURSE = load_course(DEFAULT_COURSE_FILE)
HW1 = COURSE.assignment("hw1_scaled_attention")
FULL = HW1.max_points
SOLUTION = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
ATTN_COURSE = Path(sys.executable).with_name("attn-course")
MB = 1024 * 1024
#: The longest a killed batch may take to commit its first row.
FIRST_ROW_S = 90.0
DIED = "the grading process died on this entry"


def _bytes_path(folder: Path, name: bytes) -> Path:
    return Path(os.fsdecode(os.path.join(os.fsencode(folder), name)))


def sample_class(folder: Path, keep: set[str]) -> Path:
    """The sample class of hw1 with only the entries whose student is in ``keep``."""
    write_sample_class(COURSE, HW1.id, folder)
    for path in folder.iterdir():
        if path.name.split(".")[0] not in keep:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    assert sorted(p.name.split(".")[0] for p in folder.iterdir()) == sorted(keep)
    return folder


def zip_bomb(path: Path, unpacked_bytes: int = 200 * MB) -> None:
    """A small zip whose one member unpacks to ``unpacked_bytes`` zeros."""
    chunk = bytes(MB)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open(f"bomb/{HW1.module}", "w") as member:
            for _ in range(unpacked_bytes // MB):
                member.write(chunk)


def table_size(path: Path) -> int:
    with sqlite3.connect(path) as connection:
        return connection.execute("SELECT COUNT(*) FROM submissions").fetchone()[0]


def latest_rows(path: Path) -> dict:
    with Gradebook(path) as book:
        assert book.integrity_ok()
        return {row.student: row for row in book.rows(HW1.id)}


def grade(folder: Path, gradebook: Path, course_file: Path = DEFAULT_COURSE_FILE, **options):
    return grade_batch(course_file, load_course(course_file), HW1.id, folder, gradebook, **options)


#: Entries that cannot be graded, each with words its error must hold.
BAD_ENTRIES = {
    "kim": ("kim", HW1.module),
    "lee": ("lee.py", "binary"),
    "zed": ("zed.py", "limited"),
    "bomb": ("bomb.zip", "unpacks"),
    "caf\\xe9": ("binary",),
}


def test_a_class_with_bad_entries_gets_one_row_per_entry(tmp_path):
    folder = sample_class(tmp_path / "class", {"ada", "ben", "chen", "kim", "lee"})
    with (folder / "zed.py").open("wb") as handle:
        handle.truncate(50 * MB)
    zip_bomb(folder / "bomb.zip")
    _bytes_path(folder, b"caf\xe9.py").write_bytes(b"\x00\x01 not source")
    _bytes_path(folder, b"j\xf6rg.py").write_text(SOLUTION, encoding="utf-8")
    gradebook = tmp_path / "gradebook.sqlite3"
    progress = []
    summary = grade(folder, gradebook, jobs=2, on_progress=progress.append)

    rows = latest_rows(gradebook)
    students = {"ada", "ben", "chen", "j\\xf6rg", *BAD_ENTRIES}
    assert set(rows) == students
    assert table_size(gradebook) == len(students)
    assert (summary.total, summary.skipped, summary.graded + summary.errors) == (len(students), 0, len(students))
    assert len(progress) == len(students) and None not in progress
    assert all(row.max_score == FULL for row in rows.values())
    assert (rows["ada"].score, rows["ada"].error) == (FULL, None)
    assert (rows["j\\xf6rg"].score, rows["j\\xf6rg"].error) == (FULL, None)
    assert (rows["ben"].score, rows["ben"].error) == (0.0, None)
    assert 0.0 < rows["chen"].score < FULL
    for student, words in BAD_ENTRIES.items():
        assert rows[student].score == 0.0, student
        assert rows[student].error, student
        for word in words:
            assert word in rows[student].error, (student, rows[student].error)


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    """A small class graded once: (folder, gradebook). Copy before changing."""
    root = tmp_path_factory.mktemp("graded")
    folder = sample_class(root / "class", {"ada", "kim", "lee", "nia"})
    gradebook = root / "gradebook.sqlite3"
    summary = grade(folder, gradebook, jobs=2)
    assert (summary.skipped, len(summary.rows)) == (0, 4)
    return folder, gradebook


@pytest.fixture
def copied_class(graded_class, tmp_path):
    folder, gradebook = graded_class
    shutil.copytree(folder, tmp_path / "class")
    shutil.copy(gradebook, tmp_path / "gradebook.sqlite3")
    return tmp_path / "class", tmp_path / "gradebook.sqlite3"


def test_a_second_run_skips_every_entry_already_graded(copied_class):
    folder, gradebook = copied_class
    before = latest_rows(gradebook)
    progress = []
    summary = grade(folder, gradebook, jobs=2, on_progress=progress.append)
    assert (summary.total, summary.skipped, summary.graded, summary.errors) == (4, 4, 0, 0)
    assert summary.rows == []
    assert progress == [None] * 4
    assert latest_rows(gradebook) == before
    assert table_size(gradebook) == 4


def test_only_the_entry_whose_bytes_changed_is_graded_again(copied_class):
    folder, gradebook = copied_class
    before = latest_rows(gradebook)
    changed = folder / "nia.py"
    changed.write_text(changed.read_text(encoding="utf-8") + "\n# one more line\n", encoding="utf-8")
    summary = grade(folder, gradebook, jobs=2)
    assert [row.student for row in summary.rows] == ["nia"]
    assert summary.skipped == 3
    after = latest_rows(gradebook)
    assert after["nia"].content_hash == content_hash(changed) != before["nia"].content_hash
    assert {s: after[s] for s in ("ada", "kim", "lee")} == {s: before[s] for s in ("ada", "kim", "lee")}


def test_regrade_grades_every_entry_again_keeping_one_row_per_key(copied_class):
    folder, gradebook = copied_class
    summary = grade(folder, gradebook, jobs=2, regrade=True)
    assert summary.skipped == 0
    assert sorted(row.student for row in summary.rows) == ["ada", "kim", "lee", "nia"]
    assert table_size(gradebook) == 4
    assert latest_rows(gradebook)["ada"].score == FULL


def _committed_rows(path: Path) -> int:
    """Rows committed so far by another process; 0 while the file or its table does not exist yet."""
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=1.0) as connection:
            return connection.execute("SELECT COUNT(*) FROM submissions").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def test_a_killed_batch_keeps_its_committed_rows_and_the_next_run_grades_only_the_rest(tmp_path):
    folder = sample_class(tmp_path / "class", {"ada", "ben", "chen", "kim"})
    gradebook = tmp_path / "gradebook.sqlite3"
    batch = subprocess.Popen(
        [str(ATTN_COURSE), "grade", HW1.id, str(folder), "--batch", "-j", "1", "--gradebook", str(gradebook)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    deadline = time.monotonic() + FIRST_ROW_S
    try:
        while _committed_rows(gradebook) == 0 and batch.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        os.killpg(batch.pid, signal.SIGKILL)
        batch.wait()
    assert batch.returncode == -signal.SIGKILL, "the batch ended before it was killed"

    committed = latest_rows(gradebook)
    assert 1 <= len(committed) < 4
    assert table_size(gradebook) == len(committed)
    assert "ada" in committed

    summary = grade(folder, gradebook, jobs=1)
    assert summary.skipped == len(committed)
    assert sorted(row.student for row in summary.rows) == sorted({"ada", "ben", "chen", "kim"} - set(committed))
    final = latest_rows(gradebook)
    assert set(final) == {"ada", "ben", "chen", "kim"}
    assert table_size(gradebook) == 4
    assert {s: final[s] for s in committed} == committed


FAKE_WORKER = textwrap.dedent(
    """\
    #!{python}
    # Stands in for `python -m autograder.batch.worker --course FILE ASSIGNMENT`: grades like the
    # real worker, except that it dies on an entry whose name holds "poison" and fails on "boom".
    import json, os, signal, sys
    from autograder.batch.worker import grade_line
    from autograder.config import load_course

    course, assignment = load_course(sys.argv[-2]), sys.argv[-1]
    for line in sys.stdin:
        name = os.path.basename(json.loads(line)["path"])
        if "poison" in name:
            os.kill(os.getpid(), signal.SIGKILL)
        if name.startswith("boom"):
            answer = {{"key": json.loads(line)["key"], "error": "grader error: RuntimeError('boom')"}}
        else:
            answer = grade_line(course, assignment, line)
        print(json.dumps(answer), flush=True)
    """
)


@pytest.fixture
def fake_worker(tmp_path, monkeypatch):
    """Make the batch start FAKE_WORKER instead of the real grading process."""
    script = tmp_path / "fake-python"
    script.write_text(FAKE_WORKER.format(python=sys.executable), encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(script))
    return script


def test_a_grading_process_that_dies_costs_only_its_entry(tmp_path, fake_worker):
    folder = sample_class(tmp_path / "class", {"ada", "kim", "nia"})
    (folder / "dan_poison.py").write_text(SOLUTION, encoding="utf-8")
    (folder / "boom.py").write_text(SOLUTION, encoding="utf-8")
    gradebook = tmp_path / "gradebook.sqlite3"
    summary = grade(folder, gradebook, jobs=1)
    rows = latest_rows(gradebook)
    assert set(rows) == {"ada", "boom", "dan_poison", "kim", "nia"}
    assert (rows["dan_poison"].status, rows["dan_poison"].score, rows["dan_poison"].error) == ("error", 0.0, DIED)
    assert (rows["boom"].status, rows["boom"].score) == ("error", 0.0)
    assert "boom" in rows["boom"].error
    assert (rows["nia"].status, rows["nia"].score) == ("graded", 0.0)
    assert "does not parse" in rows["nia"].error
    assert rows["ada"].score == FULL
    assert (summary.graded, summary.errors) == (3, 2)


def test_an_entry_with_two_changed_candidates_is_an_error_row_naming_both(tmp_path):
    from autograder.build.notebook import render_notebook
    from autograder.paths import NOTEBOOK_SOURCE

    folder = sample_class(tmp_path / "class", {"ada", "ben"})
    notebook = render_notebook((SOLUTIONS_DIR / HW1.id / NOTEBOOK_SOURCE).read_text(encoding="utf-8"), SOLUTION, questions=HW1.questions)
    (folder / "ada" / HW1.notebook).write_text(notebook, encoding="utf-8")
    summary = grade(folder, tmp_path / "gradebook.sqlite3", jobs=1)
    rows = {row.student: row for row in summary.rows}
    assert rows["ada"].status == "error" and HW1.module in rows["ada"].error and HW1.notebook in rows["ada"].error
    assert rows["ben"].status == "graded" and summary.errors == 1


def test_each_job_keeps_to_a_cpu_of_its_own_while_there_are_enough():
    assert job_cpus(2, {0, 1, 2}) == [0, 1]
    assert job_cpus(3, {5, 1, 3}) == [1, 3, 5]
    assert job_cpus(3, {0, 1}) == [None, None, None]  # more jobs than CPUs: the scheduler places them


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="pinning to one CPU shows only where there are two")
def test_a_grading_process_and_its_sandbox_keep_to_the_cpu_it_was_given(tmp_path):
    cpu = max(os.sched_getaffinity(0))
    submission = tmp_path / HW1.module
    submission.write_text(SOLUTION, encoding="utf-8")
    grading = GradingProcess(DEFAULT_COURSE_FILE, HW1.id, COURSE.defaults.sandbox, cpu)
    try:
        grading.send(Entry(student="ada", path=submission, submitted_at=None), "key")
        assert '"result"' in grading.process.stdout.readline()
        sandbox = descendants(grading.process.pid)
        assert sandbox, "the fork server of the grading process should still be running"
        assert {pid: os.sched_getaffinity(pid) for pid in [grading.process.pid, *sandbox]} == \
            {pid: {cpu} for pid in [grading.process.pid, *sandbox]}
    finally:
        grading.close()


# --- the resume key: an entry is skipped only when its current row was graded from what would grade it now -----

def _stub_then_solution_then_stub(folder: Path, gradebook: Path) -> list:
    """Grade the class, with ben's file the stub, then a copied solution, then the stub's exact bytes: ben's rows."""
    ben = folder / "ben" / HW1.module
    stub = ben.read_bytes()
    rows = []
    for data in (stub, SOLUTION.encode("utf-8"), stub):
        ben.write_bytes(data)
        grade(folder, gradebook, jobs=2)
        rows.append(latest_rows(gradebook))
    return rows


def test_the_stub_handed_in_again_after_a_copied_solution_scores_as_the_stub(tmp_path):
    folder = sample_class(tmp_path / "class", {"ada", "ben"})
    first, second, third = _stub_then_solution_then_stub(folder, tmp_path / "gradebook.sqlite3")
    assert (first["ben"].score, second["ben"].score, third["ben"].score) == (0.0, FULL, 0.0)
    assert third["ben"].content_hash == first["ben"].content_hash
    assert first["ada"] == second["ada"] == third["ada"] and third["ada"].score == FULL  # the honest control, graded once
    with Gradebook(tmp_path / "gradebook.sqlite3") as book:
        assert {row.student: row.score for row in book.rows(HW1.id)} == {"ada": FULL, "ben": 0.0}


def _regraded(folder: Path, gradebook: Path, **options) -> set[str]:
    summary = grade(folder, gradebook, jobs=2, **options)
    assert summary.skipped + len(summary.rows) == summary.total
    return {row.student for row in summary.rows}


def test_a_changed_course_yml_regrades_every_entry_and_the_same_bytes_elsewhere_do_not(copied_class, tmp_path):
    folder, gradebook = copied_class
    students = set(latest_rows(gradebook))
    same = course_beside(tmp_path / "same")
    assert _regraded(folder, gradebook, course_file=same) == set()
    changed = course_beside(tmp_path / "changed", DEFAULT_COURSE_FILE.read_bytes() + b"\n# the instructor's note\n")
    assert _regraded(folder, gradebook, course_file=changed) == students


def test_a_changed_hidden_suite_regrades_every_entry_and_the_same_suite_does_not(copied_class, tmp_path):
    folder, gradebook = copied_class
    students = set(latest_rows(gradebook))
    course_file = course_beside(tmp_path / "course", copy_suite=True)  # a course whose suite is its own copy
    assert _regraded(folder, gradebook, course_file=course_file) == set()
    test_file = sorted((tmp_path / "course" / "hidden_tests" / HW1.id).glob("test_*.py"))[-1]
    test_file.write_bytes(test_file.read_bytes() + b"\n# a changed hidden test\n")
    assert _regraded(folder, gradebook, course_file=course_file) == students


def test_another_grader_version_regrades_every_entry_and_the_same_one_does_not(copied_class, monkeypatch):
    import autograder

    folder, gradebook = copied_class
    students = set(latest_rows(gradebook))
    assert _regraded(folder, gradebook) == set()
    monkeypatch.setattr(autograder, "__version__", autograder.__version__ + ".post1")
    assert _regraded(folder, gradebook) == students
    assert {row.grader_version.split("+")[0] for row in latest_rows(gradebook).values()} == {autograder.__version__}


def test_a_changed_submission_time_regrades_that_entry_alone_with_its_late_penalty(copied_class):
    from autograder.grade.late import days_late
    from autograder.grade.submitted import TIMES_CSV

    folder, gradebook = copied_class
    students = sorted(latest_rows(gradebook))
    on_time = HW1.due - dt.timedelta(hours=1)
    (folder / TIMES_CSV).write_text("student,submitted_at\n" + "".join(f"{s},{on_time.isoformat()}\n" for s in students))
    assert _regraded(folder, gradebook) == set(students)  # the times' source changed for every entry
    late = HW1.due + dt.timedelta(days=2, hours=1)
    (folder / TIMES_CSV).write_text("student,submitted_at\n" + "".join(
        f"{s},{(late if s == 'ada' else on_time).isoformat()}\n" for s in students))
    assert _regraded(folder, gradebook) == {"ada"}
    ada = latest_rows(gradebook)["ada"]
    assert ada.days_late == days_late(HW1.due, late, COURSE.late_policy) > 0 and ada.score < FULL


def test_a_dotted_id_gets_its_late_penalty_and_an_entry_without_a_time_row_says_so(tmp_path):
    from autograder.gradebook.reasons import NO_TIME, row_reasons
    from autograder.grade.submitted import TIMES_CSV, TimeSource

    folder = sample_class(tmp_path / "class", {"ada"})
    (folder / "jean.luc.py").write_text(SOLUTION, encoding="utf-8")
    (folder / "zoe.py").write_text(SOLUTION, encoding="utf-8")
    late = HW1.due + dt.timedelta(days=1, hours=1)
    (folder / TIMES_CSV).write_text(f"student,submitted_at\nada,{late.isoformat()}\njean.luc,{late.isoformat()}\n"
                                    f"ghost,{late.isoformat()}\n")
    summary = grade(folder, tmp_path / "gradebook.sqlite3", jobs=2)
    rows = latest_rows(tmp_path / "gradebook.sqlite3")
    assert set(rows) == {"ada", "jean.luc", "zoe"}
    assert rows["jean.luc"].days_late == rows["ada"].days_late > 0  # as the honest control
    assert rows["jean.luc"].score == rows["ada"].score < FULL
    assert NO_TIME not in row_reasons(rows["jean.luc"])
    assert (rows["zoe"].submitted_at, rows["zoe"].submitted_at_source, rows["zoe"].days_late) == (None, TimeSource.UNMATCHED, 0)
    assert NO_TIME in row_reasons(rows["zoe"])
    assert (summary.untimed, summary.unknown_in_times) == (["zoe"], ["ghost"])
