"""The resume key: what a batch compares with an entry's current gradebook row before it skips the entry."""

from __future__ import annotations

import dataclasses
import datetime as dt
import shutil

import pytest

import autograder
from autograder.batch.entries import Entry
from autograder.batch.resume import grading_fingerprint, is_current, submitted_text, suite_files
from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.grade.submitted import TimeSource
from autograder.paths import HIDDEN_TESTS_DIR
from tests.autograder.gradebook.test_store import make_row
from tests.autograder.support import course_beside

HW1 = load_course(DEFAULT_COURSE_FILE).assignment("hw1_scaled_attention")
WHEN = dt.datetime(2027, 3, 9, 2, tzinfo=dt.timezone.utc)
DIGEST = "ab" * 32


def _entry(**changes) -> Entry:
    return dataclasses.replace(Entry("ada", HIDDEN_TESTS_DIR, WHEN, TimeSource.CSV), **changes)


def _row(entry: Entry, **changes):
    return make_row(student=entry.student, content_hash=DIGEST, grader_version="fp", status="graded",
                    submitted_at=submitted_text(entry), submitted_at_source=entry.submitted_at_source, **changes)


def test_the_row_graded_from_what_would_grade_the_entry_now_is_current():
    entry = _entry()
    assert is_current(_row(entry), entry, DIGEST, "fp")


@pytest.mark.parametrize("change", ["bytes", "fingerprint", "time", "source", "error", "never graded"])
def test_any_change_of_the_key_makes_the_row_stale(change):
    entry = _entry()
    row = _row(entry)
    digest, fingerprint = DIGEST, "fp"
    if change == "bytes":
        digest = "cd" * 32
    elif change == "fingerprint":
        fingerprint = "fp2"
    elif change == "time":
        entry = _entry(submitted_at=WHEN + dt.timedelta(days=1))
    elif change == "source":
        entry = _entry(submitted_at=None, submitted_at_source=TimeSource.UNMATCHED)
        row = dataclasses.replace(row, submitted_at=None)
    elif change == "error":
        row = dataclasses.replace(row, status="error")
    else:
        row = None
    assert not is_current(row, entry, digest, fingerprint)


def test_the_fingerprint_changes_with_course_yml_s_bytes_not_its_place(tmp_path):
    copy = course_beside(tmp_path / "a")
    before = grading_fingerprint(copy, HW1.id)
    assert grading_fingerprint(DEFAULT_COURSE_FILE, HW1.id) == before
    changed = course_beside(tmp_path / "b", copy.read_bytes() + b"\n# a comment\n")
    assert grading_fingerprint(changed, HW1.id) != before


def test_the_fingerprint_of_a_course_elsewhere_reads_the_suite_beside_it(tmp_path):
    course_file = course_beside(tmp_path / "a", copy_suite=True)
    before = grading_fingerprint(course_file, HW1.id)
    test_file = sorted((tmp_path / "a" / "hidden_tests" / HW1.id).glob("test_*.py"))[-1]
    test_file.write_bytes(test_file.read_bytes() + b"\n# changed\n")
    assert grading_fingerprint(course_file, HW1.id) != before


def test_the_fingerprint_changes_with_any_file_of_the_hidden_suite_but_not_its_caches(tmp_path):
    shutil.copytree(HIDDEN_TESTS_DIR / HW1.id, tmp_path / HW1.id, ignore=shutil.ignore_patterns("__pycache__"))
    before = grading_fingerprint(DEFAULT_COURSE_FILE, HW1.id, tmp_path)
    assert grading_fingerprint(DEFAULT_COURSE_FILE, HW1.id) == before  # the same suite elsewhere
    (tmp_path / HW1.id / "__pycache__").mkdir()
    (tmp_path / HW1.id / "__pycache__" / "test_softmax.cpython-311.pyc").write_bytes(b"\0")
    assert grading_fingerprint(DEFAULT_COURSE_FILE, HW1.id, tmp_path) == before
    seen = {before}
    test_file = sorted((tmp_path / HW1.id).glob("test_*.py"))[0]
    test_file.write_bytes(test_file.read_bytes() + b"\n# one more line\n")
    seen.add(grading_fingerprint(DEFAULT_COURSE_FILE, HW1.id, tmp_path))
    (tmp_path / HW1.id / "helpers").mkdir()
    (tmp_path / HW1.id / "helpers" / "cases.json").write_text("[1, 2]", encoding="utf-8")  # not a .py file: still the suite's
    seen.add(grading_fingerprint(DEFAULT_COURSE_FILE, HW1.id, tmp_path))
    (tmp_path / HW1.id / "helpers" / "cases.json").rename(tmp_path / HW1.id / "helpers" / "other.json")
    seen.add(grading_fingerprint(DEFAULT_COURSE_FILE, HW1.id, tmp_path))
    assert len(seen) == 4


def test_the_suite_is_every_test_file_the_grader_runs():
    from autograder.grade.api import hidden_test_files

    assert set(hidden_test_files(HW1, HIDDEN_TESTS_DIR)) <= set(suite_files(HW1.id, HIDDEN_TESTS_DIR))


def test_the_fingerprint_changes_with_the_grader_version(monkeypatch):
    before = grading_fingerprint(DEFAULT_COURSE_FILE, HW1.id)
    monkeypatch.setattr(autograder, "__version__", autograder.__version__ + ".post1")
    after = grading_fingerprint(DEFAULT_COURSE_FILE, HW1.id)
    assert after != before and after.startswith(autograder.__version__ + "+")
