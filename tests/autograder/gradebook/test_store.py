"""The SQLite gradebook: schema, round trips, the resume key, latest rows, integrity, concurrent writers."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import subprocess
import sys
import textwrap
import time
from contextlib import closing
from pathlib import Path

import pytest

from autograder.gradebook.store import ADDED_COLUMNS, Gradebook, GradebookRow

WRITERS = 3
ROWS_PER_WRITER = 300
WRITERS_FINISH_S = 120


def make_row(**changes) -> GradebookRow:
    """A row with a value in every field, none of them a default."""
    row = GradebookRow(
        student="zoë",
        assignment="hw1_scaled_attention",
        content_hash="ab" * 32,
        grader_version="9.9.9",
        status="graded",
        score=6.3,
        max_score=9.0,
        raw_score=7.0,
        error="a load error\nsecond line",
        diagnoses=("no_scaling", "mask_inverted"),
        tests=json.dumps([{"function": "softmax", "score": 2.0}]),
        isolation="bwrap",
        days_late=1,
        submitted_at="2027-03-09T10:00:00+00:00",
        graded_at="2027-03-10T12:00:00+00:00",
        execution_time=1.25,
        report=json.dumps({"text": "Score: 6.3 / 9", "gradescope": {"score": 6.3}}),
        seed=3_141_592_653,
    )
    return dataclasses.replace(row, **changes)


def _count(path: Path) -> int:
    with sqlite3.connect(path) as connection:
        return connection.execute("SELECT COUNT(*) FROM submissions").fetchone()[0]


def test_opening_creates_the_folder_table_index_and_wal_journal(tmp_path):
    path = tmp_path / "new" / "folder" / "gradebook.sqlite3"
    with Gradebook(path):
        pass
    with sqlite3.connect(path) as connection:
        names = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
        journal = connection.execute("PRAGMA journal_mode").fetchone()[0]
    assert {"submissions", "by_student"} <= names
    assert journal == "wal"


def test_a_row_round_trips_with_every_field(tmp_path):
    row = make_row()
    with Gradebook(tmp_path / "gb.sqlite3") as book:
        book.record(row)
        (stored,) = book.rows()
    assert stored == row
    assert stored.diagnoses == ("no_scaling", "mask_inverted")
    assert stored.report_dict["gradescope"] == {"score": 6.3}


def test_a_row_without_optional_fields_round_trips(tmp_path):
    row = make_row(error=None, submitted_at=None, diagnoses=(), status="error", score=0.0, seed=None)
    with Gradebook(tmp_path / "gb.sqlite3") as book:
        book.record(row)
        assert book.rows() == [row]


def test_rows_survive_closing_and_reopening(tmp_path):
    path = tmp_path / "gb.sqlite3"
    with Gradebook(path) as book:
        book.record(make_row())
    with Gradebook(path) as book:
        assert book.rows() == [make_row()]


def test_the_current_row_is_the_latest_of_the_student_and_assignment(tmp_path):
    first, second = make_row(content_hash="ab" * 32, score=0.0), make_row(content_hash="cd" * 32, score=9.0)
    with Gradebook(tmp_path / "gb.sqlite3") as book:
        assert book.current_row(first.student, first.assignment) is None
        book.record(first)
        assert book.current_row(first.student, first.assignment) == first
        book.record(second)
        assert book.current_row(first.student, first.assignment) == second
        assert book.current_row("someone else", first.assignment) is None
        assert book.current_row(first.student, "hw2_rnn_attention") is None
        book.record(first)  # the same key again: it replaces the older row and is the current one
        assert book.current_row(first.student, first.assignment) == first
        assert book.rows() == [first]


def test_recording_the_same_key_again_replaces_the_row(tmp_path):
    path = tmp_path / "gb.sqlite3"
    with Gradebook(path) as book:
        book.record(make_row(score=1.0))
        book.record(make_row(score=8.0, graded_at="2027-03-11T00:00:00+00:00"))
        rows = book.rows()
    assert _count(path) == 1
    assert [(r.score, r.graded_at) for r in rows] == [(8.0, "2027-03-11T00:00:00+00:00")]


def test_rows_gives_the_latest_recorded_row_per_student_and_assignment(tmp_path):
    path = tmp_path / "gb.sqlite3"
    with Gradebook(path) as book:
        book.record(make_row(student="ada", content_hash="old", score=3.0))
        book.record(make_row(student="ada", content_hash="new", score=9.0))
        book.record(make_row(student="ben", content_hash="only", score=0.0))
        book.record(make_row(student="ada", assignment="hw2_rnn_attention", content_hash="x", score=5.0))
        rows = book.rows()
    assert _count(path) == 4
    assert [(r.assignment, r.student, r.content_hash) for r in rows] == [
        ("hw1_scaled_attention", "ada", "new"),
        ("hw1_scaled_attention", "ben", "only"),
        ("hw2_rnn_attention", "ada", "x"),
    ]


def test_regrading_older_bytes_makes_them_the_latest_again(tmp_path):
    with Gradebook(tmp_path / "gb.sqlite3") as book:
        book.record(make_row(content_hash="first", score=3.0))
        book.record(make_row(content_hash="second", score=9.0))
        book.record(make_row(content_hash="first", score=4.0))
        (latest,) = book.rows()
    assert (latest.content_hash, latest.score) == ("first", 4.0)


def test_rows_of_one_assignment(tmp_path):
    with Gradebook(tmp_path / "gb.sqlite3") as book:
        book.record(make_row(student="ada"))
        book.record(make_row(student="ada", assignment="hw2_rnn_attention"))
        book.record(make_row(student="ben", assignment="hw2_rnn_attention"))
        rows = book.rows("hw2_rnn_attention")
    assert [(r.assignment, r.student) for r in rows] == [("hw2_rnn_attention", "ada"), ("hw2_rnn_attention", "ben")]


def test_a_status_outside_graded_and_error_is_refused(tmp_path):
    with Gradebook(tmp_path / "gb.sqlite3") as book:
        with pytest.raises(sqlite3.IntegrityError):
            book.record(make_row(status="pending"))
        assert book.rows() == []
        book.record(make_row())
        assert len(book.rows()) == 1


def test_integrity_ok_on_a_healthy_gradebook(tmp_path):
    with Gradebook(tmp_path / "gb.sqlite3") as book:
        for index in range(50):
            book.record(make_row(student=f"s{index}"))
        assert book.integrity_ok()


def test_integrity_ok_is_false_when_an_index_disagrees_with_its_table(tmp_path):
    path = tmp_path / "gb.sqlite3"
    with Gradebook(path) as book:
        for index in range(30):
            book.record(make_row(student=f"s{index}"))
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA writable_schema = ON")
    connection.execute(
        "UPDATE sqlite_master SET sql = 'CREATE INDEX by_student ON submissions (student, assignment)' "
        "WHERE name = 'by_student'"
    )
    connection.commit()
    connection.close()
    with Gradebook(path) as book:
        assert not book.integrity_ok()


def test_integrity_ok_is_false_when_the_pages_after_the_header_are_overwritten(tmp_path):
    path = tmp_path / "gb.sqlite3"
    with Gradebook(path) as book:
        for index in range(30):
            book.record(make_row(student=f"s{index}"))
    with closing(sqlite3.connect(path)) as connection:
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(path.read_bytes())
    data[page_size:] = b"\xff" * (len(data) - page_size)  # page 1 (header, schema) stays readable
    path.write_bytes(bytes(data))
    with Gradebook(path) as book:  # SQLite's check raises "database disk image is malformed"
        assert not book.integrity_ok()


WRITER_CODE = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from autograder.gradebook.store import Gradebook
    from tests.autograder.gradebook.test_store import make_row

    path, go, writer, count = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    go.with_name(f"ready-{writer}").touch()
    while not go.exists():
        time.sleep(0.005)
    with Gradebook(path) as book:
        for index in range(count):
            book.record(make_row(student=f"{writer}-{index:04d}", graded_at=f"{time.time():.6f}"))
    print("done", writer)
    """
)


def test_concurrent_writers_in_separate_processes_lose_nothing(tmp_path):
    path = tmp_path / "shared.sqlite3"
    go = tmp_path / "go"
    project = Path(__file__).resolve().parents[3]
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER_CODE, str(path), str(go), f"w{k}", str(ROWS_PER_WRITER)],
            cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for k in range(WRITERS)
    ]
    deadline = time.monotonic() + WRITERS_FINISH_S
    while len(list(tmp_path.glob("ready-*"))) < WRITERS and time.monotonic() < deadline:
        time.sleep(0.01)
    go.touch()  # every writer starts now; none has opened the file yet
    outputs = [writer.communicate(timeout=WRITERS_FINISH_S) for writer in writers]
    for writer, (out, err) in zip(writers, outputs):
        assert writer.returncode == 0, err
        assert "locked" not in err
        assert out.startswith("done")
    with Gradebook(path) as book:
        students = {row.student for row in book.rows()}
        assert book.integrity_ok()
    expected = {f"w{k}-{index:04d}" for k in range(WRITERS) for index in range(ROWS_PER_WRITER)}
    assert students == expected
    assert _count(path) == WRITERS * ROWS_PER_WRITER


def test_a_gradebook_made_before_the_seed_column_gains_it_and_keeps_its_rows(tmp_path):
    path = tmp_path / "old.sqlite3"
    columns = [f.name for f in dataclasses.fields(GradebookRow) if f.name != "seed"]
    old = make_row()
    with sqlite3.connect(path) as connection:
        connection.execute(f"CREATE TABLE submissions (id INTEGER PRIMARY KEY, {', '.join(columns)}, "
                           "UNIQUE (student, assignment, content_hash, grader_version))")
        values = [json.dumps(list(old.diagnoses)) if c == "diagnoses" else getattr(old, c) for c in columns]
        connection.execute(f"INSERT INTO submissions ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", values)
    with Gradebook(path) as book:
        assert book.rows() == [dataclasses.replace(old, seed=None)]
        book.record(make_row(student="new"))
        assert {row.student: row.seed for row in book.rows()} == {"zoë": None, "new": 3_141_592_653}


def test_the_same_bytes_graded_by_another_grader_version_are_a_second_row(tmp_path):
    path = tmp_path / "gb.sqlite3"
    with Gradebook(path) as book:
        book.record(make_row(grader_version="1.0.0"))
        book.record(make_row(grader_version="1.0.1", score=7.0))
    assert _count(path) == 2


#: The first schema of the gradebook, before submission times had a recorded source.
FIRST_SCHEMA = """
CREATE TABLE submissions (
    id INTEGER PRIMARY KEY, student TEXT NOT NULL, assignment TEXT NOT NULL, content_hash TEXT NOT NULL,
    grader_version TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('graded', 'error')), score REAL NOT NULL,
    max_score REAL NOT NULL, raw_score REAL NOT NULL, error TEXT, diagnoses TEXT NOT NULL, tests TEXT NOT NULL,
    isolation TEXT NOT NULL, days_late INTEGER NOT NULL, submitted_at TEXT, graded_at TEXT NOT NULL,
    execution_time REAL NOT NULL, report TEXT NOT NULL, UNIQUE (student, assignment, content_hash, grader_version)
);
INSERT INTO submissions VALUES (1, 'ada', 'hw1', 'abc', 'v1', 'graded', 9, 9, 9, NULL, '[]', '[]', 'bwrap', 1,
    '2027-03-09T10:00:00+00:00', '2027-03-10T10:00:00+00:00', 0.5, '{}');
"""


def test_a_gradebook_of_the_first_schema_opens_and_its_rows_say_their_times_were_file_times(tmp_path):
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.executescript(FIRST_SCHEMA)
    with Gradebook(path) as book:
        (old,) = book.rows()
        assert (old.student, old.days_late, old.submitted_at_source) == ("ada", 1, "file time")
        book.record(make_row(student="ben", submitted_at_source="submitted_at.csv"))
        assert {r.student: r.submitted_at_source for r in book.rows()} == {"ada": "file time", "ben": "submitted_at.csv"}
    with Gradebook(path) as again:
        assert len(again.rows()) == 2


class ColumnsReadBeforeAnotherBatchAddedThem:
    """A connection whose view of the table's columns predates the added ones (another batch added them meanwhile)."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def execute(self, sql: str, *parameters):
        rows = self._connection.execute(sql, *parameters)
        if sql.startswith("PRAGMA table_info"):
            return [row for row in rows if row[1] not in ADDED_COLUMNS]
        return rows

    def __getattr__(self, name):
        return getattr(self._connection, name)


def test_a_column_another_batch_added_meanwhile_is_not_an_error(tmp_path, monkeypatch):
    path = tmp_path / "gb.sqlite3"
    with Gradebook(path) as book:
        book.record(make_row())
    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *args, **kwargs: ColumnsReadBeforeAnotherBatchAddedThem(connect(*args, **kwargs)))
    with Gradebook(path) as book:  # every ALTER TABLE ... ADD COLUMN fails with "duplicate column name"
        assert book.rows() == [make_row()]


OPENER_CODE = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from autograder.gradebook.store import Gradebook

    path, go = Path(sys.argv[1]), Path(sys.argv[2])
    while not go.exists():
        time.sleep(0.001)
    Gradebook(path).close()
    """
)
#: Processes opening one new gradebook at once, and how many times (without the retried switch to WAL,
#: about one opener in 40 failed with "database is locked").
OPENERS, OPENING_ROUNDS = 8, 8


def test_processes_opening_a_new_gradebook_at_once_all_succeed(tmp_path):
    project = Path(__file__).resolve().parents[3]
    for round_ in range(OPENING_ROUNDS):
        path, go = tmp_path / f"new-{round_}.sqlite3", tmp_path / f"go-{round_}"
        openers = [subprocess.Popen([sys.executable, "-c", OPENER_CODE, str(path), str(go)], cwd=project,
                                    stderr=subprocess.PIPE, text=True) for _ in range(OPENERS)]
        time.sleep(0.5)  # let them start: the race is between the openings, not the interpreters
        go.touch()
        for opener in openers:
            _, err = opener.communicate(timeout=WRITERS_FINISH_S)
            assert opener.returncode == 0, err


def test_students_are_everyone_with_a_row_of_any_assignment(tmp_path):
    with Gradebook(tmp_path / "gb.sqlite3") as book:
        assert book.students() == set()
        for student, assignment in (("ada", "hw1_scaled_attention"), ("ada", "hw2_rnn_attention"), ("ben", "hw2_rnn_attention")):
            book.record(make_row(student=student, assignment=assignment))
        assert book.students() == {"ada", "ben"} == {row.student for row in book.rows()}
