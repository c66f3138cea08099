"""The entries of a class folder: student names, hidden files, odd names, content hashes."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import zipfile
from pathlib import Path

import pytest

from autograder.batch.entries import Entry, content_hash, list_entries, student_name, unknown_students
from autograder.grade.submitted import TIMES_CSV, TimeSource, read_times_csv

MODULE = "scaled_attention.py"


def _bytes_path(folder: Path, name: bytes) -> Path:
    """A path whose last component is the raw bytes ``name`` (possibly not UTF-8)."""
    return Path(os.fsdecode(os.path.join(os.fsencode(folder), name)))


def test_students_are_named_after_files_folders_and_zips(tmp_path):
    (tmp_path / "ada.py").write_text("x = 1\n")
    (tmp_path / "ben").mkdir()
    (tmp_path / "ben" / MODULE).write_text("x = 1\n")
    (tmp_path / "gus.ipynb").write_text("{}")
    with zipfile.ZipFile(tmp_path / "olga.zip", "w") as archive:
        archive.writestr(f"olga/{MODULE}", "x = 1\n")
    entries = list_entries(tmp_path)
    assert [(e.student, e.path.name) for e in entries] == [
        ("ada", "ada.py"), ("ben", "ben"), ("gus", "gus.ipynb"), ("olga", "olga.zip"),
    ]
    assert all(isinstance(e, Entry) for e in entries)


def test_a_file_loses_one_known_extension_and_keeps_every_other_dot():
    assert student_name(Path("/nowhere/dana.v2.final.py")) == "dana.v2.final"
    assert student_name(Path("/nowhere/jean.luc.ipynb")) == "jean.luc"
    assert student_name(Path("/nowhere/a.zip.py")) == "a.zip"
    assert student_name(Path("/nowhere/notes.txt")) == "notes.txt"
    assert student_name(Path("/nowhere/ADA.PY")) == "ADA.PY"  # the grader reads .py, not .PY: not a known extension
    assert student_name(Path("/nowhere/eli")) == "eli"


@pytest.mark.parametrize("entry", ["jean.luc.py", "jean.luc.ipynb", "jean.luc.zip", "jean.luc"])
def test_a_dotted_id_meets_its_row_of_submitted_at_csv_as_an_honest_id_does(tmp_path, entry):
    """jean.luc.py once became student jean: it missed its (late) row, so it was graded on time, without a word."""
    late = dt.datetime(2027, 3, 20, tzinfo=dt.timezone.utc)
    (tmp_path / entry).mkdir() if "." not in entry.removeprefix("jean.luc") else (tmp_path / entry).write_text("x = 1\n")
    (tmp_path / "ada.py").write_text("x = 1\n")  # the honest control
    (tmp_path / TIMES_CSV).write_text(f"student,submitted_at\nada,{late.isoformat()}\njean.luc,{late.isoformat()}\n")
    times = read_times_csv(tmp_path / TIMES_CSV)
    entries = {e.student: e for e in list_entries(tmp_path, times)}
    assert set(entries) == {"ada", "jean.luc"}
    for student in entries:
        assert (entries[student].submitted_at, entries[student].submitted_at_source) == (late, TimeSource.CSV), student
    assert unknown_students(list(entries.values()), times) == []


def test_an_entry_submitted_at_csv_has_no_row_for_says_so_and_the_row_naming_no_entry_is_found(tmp_path):
    (tmp_path / "ada.py").write_text("x = 1\n")
    (tmp_path / "jean.luc.py").write_text("x = 1\n")
    (tmp_path / TIMES_CSV).write_text("student,submitted_at\nada,2027-03-09T10:00:00+08:00\njean,2027-03-09T10:00:00+08:00\n")
    times = read_times_csv(tmp_path / TIMES_CSV)
    entries = list_entries(tmp_path, times, file_times=True)
    sources = {e.student: (e.submitted_at is None, e.submitted_at_source) for e in entries}
    assert sources == {"ada": (False, TimeSource.CSV), "jean.luc": (True, TimeSource.UNMATCHED)}
    assert unknown_students(entries, times) == ["jean"]
    assert unknown_students(entries, None) == []


def test_a_folder_keeps_its_whole_name_dots_included(tmp_path):
    (tmp_path / "j.doe").mkdir()
    assert [e.student for e in list_entries(tmp_path)] == ["j.doe"]


def test_hidden_files_and_folders_are_skipped(tmp_path):
    (tmp_path / ".DS_Store").write_bytes(b"\0\0")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".hidden.py").write_text("x = 1\n")
    (tmp_path / "ada.py").write_text("x = 1\n")
    assert [e.student for e in list_entries(tmp_path)] == ["ada"]


def test_an_empty_class_folder_has_no_entries(tmp_path):
    assert list_entries(tmp_path) == []


def test_non_utf8_file_and_folder_names_become_ids_with_escaped_bytes(tmp_path):
    cafe = _bytes_path(tmp_path, b"caf\xe9.py")
    cafe.write_bytes(b"x = 1\n")
    jorg = _bytes_path(tmp_path, b"j\xf6rg")
    jorg.mkdir()
    (jorg / MODULE).write_bytes(b"x = 2\n")
    entries = {e.student: e for e in list_entries(tmp_path)}
    assert set(entries) == {"caf\\xe9", "j\\xf6rg"}
    assert entries["caf\\xe9"].path.read_bytes() == b"x = 1\n"
    assert os.fsencode(entries["j\\xf6rg"].path.name) == b"j\xf6rg"


def test_entries_are_sorted_by_the_bytes_of_their_names(tmp_path):
    for name in (b"zed.py", b"\xff.py", b"Ada.py", b"ben.py"):
        _bytes_path(tmp_path, name).write_bytes(b"")
    assert [os.fsencode(e.path.name) for e in list_entries(tmp_path)] == [b"Ada.py", b"ben.py", b"zed.py", b"\xff.py"]


def test_with_file_times_submitted_at_is_the_modification_time_in_utc(tmp_path):
    path = tmp_path / "ada.py"
    path.write_text("x = 1\n")
    when = dt.datetime(2027, 3, 9, 1, 2, 3, tzinfo=dt.timezone.utc)
    os.utime(path, (when.timestamp(), when.timestamp()))
    (entry,) = list_entries(tmp_path, file_times=True)
    assert (entry.submitted_at, entry.submitted_at_source) == (when, TimeSource.FILE_TIME)
    (unasked,) = list_entries(tmp_path)
    assert (unasked.submitted_at, unasked.submitted_at_source) == (None, TimeSource.NONE)


def test_the_times_of_submitted_at_csv_win_and_the_file_is_no_entry(tmp_path):
    for name in ("ada.py", "ben.py"):
        (tmp_path / name).write_text("x = 1\n")
    (tmp_path / TIMES_CSV).write_text("student,submitted_at\nada,2027-03-09T10:00:00+08:00\n")
    times = read_times_csv(tmp_path / TIMES_CSV)
    entries = {e.student: e for e in list_entries(tmp_path, times, file_times=True)}
    assert set(entries) == {"ada", "ben"}
    assert entries["ada"].submitted_at == dt.datetime(2027, 3, 9, 2, 0, tzinfo=dt.timezone.utc)
    assert entries["ada"].submitted_at_source == TimeSource.CSV
    assert (entries["ben"].submitted_at, entries["ben"].submitted_at_source) == (None, TimeSource.UNMATCHED)


def test_a_dangling_symlink_is_an_entry_without_a_time_and_with_an_unreadable_hash(tmp_path):
    (tmp_path / "ghost.py").symlink_to(tmp_path / "missing.py")
    (entry,) = list_entries(tmp_path)
    assert entry.student == "ghost"
    assert entry.submitted_at is None
    digest = content_hash(entry.path)
    assert digest.startswith("unreadable:")
    assert digest.startswith("unreadable:")


def test_the_hash_of_a_file_is_the_sha256_of_its_bytes_and_is_stable(tmp_path):
    path = tmp_path / "ada.py"
    data = b"def softmax(x):\n    return x\n" * 1000
    path.write_bytes(data)
    assert content_hash(path) == hashlib.sha256(data).hexdigest()
    assert content_hash(path) == content_hash(path)


def test_the_hash_of_a_file_changes_with_one_byte(tmp_path):
    path = tmp_path / "ada.py"
    path.write_bytes(b"x = 1\n")
    before = content_hash(path)
    path.write_bytes(b"x = 2\n")
    assert content_hash(path) != before


def test_the_hash_of_a_file_larger_than_one_read_covers_every_byte(tmp_path):
    path = tmp_path / "big.py"
    size = 3 * 1024 * 1024 + 17
    with path.open("wb") as handle:
        handle.truncate(size)
    before = content_hash(path)
    with path.open("r+b") as handle:
        handle.seek(size - 1)
        handle.write(b"\1")
    assert content_hash(path) != before


def _folder(root: Path, files: dict[str, bytes]) -> Path:
    root.mkdir()
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def test_the_hash_of_a_folder_depends_on_its_content_not_its_location(tmp_path):
    files = {MODULE: b"x = 1\n", "notes/readme.txt": b"hello"}
    assert content_hash(_folder(tmp_path / "one", files)) == content_hash(_folder(tmp_path / "two", files))


def test_the_hash_of_a_folder_changes_with_a_file_name(tmp_path):
    first = _folder(tmp_path / "one", {MODULE: b"x = 1\n"})
    renamed = _folder(tmp_path / "two", {"other.py": b"x = 1\n"})
    assert content_hash(first) != content_hash(renamed)


def test_the_hash_of_a_folder_changes_with_a_file_s_bytes(tmp_path):
    folder = _folder(tmp_path / "ben", {MODULE: b"x = 1\n", "helper.py": b"y = 1\n"})
    before = content_hash(folder)
    (folder / "helper.py").write_bytes(b"y = 2\n")
    assert content_hash(folder) != before


def test_the_hash_of_a_folder_changes_when_bytes_move_between_files(tmp_path):
    first = _folder(tmp_path / "one", {"a.py": b"12", "b.py": b"3"})
    second = _folder(tmp_path / "two", {"a.py": b"1", "b.py": b"23"})
    assert content_hash(first) != content_hash(second)


def test_the_hash_of_a_folder_changes_when_a_file_is_added(tmp_path):
    folder = _folder(tmp_path / "ben", {MODULE: b"x = 1\n"})
    before = content_hash(folder)
    (folder / "empty.txt").write_bytes(b"")
    assert content_hash(folder) != before


def test_the_hash_of_an_empty_folder_is_a_digest(tmp_path):
    (tmp_path / "kim").mkdir()
    assert content_hash(tmp_path / "kim") == hashlib.sha256().hexdigest()


def test_a_fifo_inside_a_folder_is_left_out_of_the_hash_without_blocking(tmp_path):
    folder = _folder(tmp_path / "ben", {MODULE: b"x = 1\n"})
    before = content_hash(folder)
    os.mkfifo(folder / "pipe")
    assert content_hash(folder) == before


def test_the_hash_of_a_folder_with_a_non_utf8_file_name(tmp_path):
    folder = _folder(tmp_path / "ben", {MODULE: b"x = 1\n"})
    before = content_hash(folder)
    _bytes_path(folder, b"caf\xe9.txt").write_bytes(b"")
    after = content_hash(folder)
    assert after != before
    assert not after.startswith("unreadable:")


def test_a_fifo_is_unreadable_not_a_hang(tmp_path):
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    assert content_hash(fifo) == "unreadable:not a regular file"


def test_folder_hash_cannot_be_forged_by_moving_bytes_between_files(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    (one / "a").write_bytes(b"XXb\0Z")
    (two / "a").write_bytes(b"XX")
    (two / "b").write_bytes(b"Z")
    assert content_hash(one) != content_hash(two)


def test_a_file_and_a_folder_of_the_same_student_name_stay_apart(tmp_path):
    (tmp_path / "ada.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "ada").mkdir()
    assert sorted(entry.student for entry in list_entries(tmp_path)) == ["ada", "ada.py"]


def test_ids_stay_apart_when_a_whole_name_is_another_entry_s_id(tmp_path):
    (tmp_path / "ada.py").write_text("x = 1\n", encoding="utf-8")  # ada, then its whole name ada.py...
    (tmp_path / "ada").mkdir()
    (tmp_path / "ada.py.zip").write_bytes(b"")  # ...which is this one's id
    (tmp_path / "ada.py.ipynb").mkdir()  # a folder keeps its whole name
    (tmp_path / "ben.py").write_text("x = 1\n", encoding="utf-8")
    students = [entry.student for entry in list_entries(tmp_path)]
    assert len(set(students)) == len(students) == 5
    assert "ben" in students and "ada" in students


def test_whole_names_that_show_alike_still_give_ids_of_their_own(tmp_path):
    _bytes_path(tmp_path, b"caf\xe9.py").write_bytes(b"")
    (tmp_path / "caf\\xe9.py").write_bytes(b"")  # a backslash, x, e, 9: shows as the byte's escape
    (tmp_path / "caf\\xe9.py~2.py").write_bytes(b"")  # and one named after the mark the second would get
    students = [entry.student for entry in list_entries(tmp_path)]
    assert len(set(students)) == len(students) == 3


def test_a_folder_entry_is_as_late_as_its_newest_file(tmp_path):
    folder = tmp_path / "ada"
    folder.mkdir()
    work = folder / "scaled_attention.py"
    work.write_text("x = 1\n", encoding="utf-8")
    early, late = 1_700_000_000, 1_800_000_000
    os.utime(work, (late, late))
    os.utime(folder, (early, early))
    (entry,) = list_entries(tmp_path, file_times=True)
    assert entry.submitted_at == dt.datetime.fromtimestamp(late, tz=dt.timezone.utc)
