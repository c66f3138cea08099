"""Gradebook exports: the score table, the CSV, safe folder names and per-student feedback files."""

from __future__ import annotations

import csv
import hashlib
import json
import re

import pytest

from autograder.gradebook.export import safe_name, score_table, write_csv, write_feedback

from .test_store import make_row

ASSIGNMENTS = ["hw1_scaled_attention", "hw2_rnn_attention", "hw3_multi_head"]
GRADESCOPE_KEYS = {"score", "output", "tests"}


def _graded(student: str, assignment: str, score: float):
    """A graded row whose report is the canonical record of a one-question result."""
    from autograder.engine.results import FAILED, PASSED, TestResult
    from autograder.grade.record import to_record
    from autograder.grade.result import GradeResult
    from autograder.scoring import QuestionScore

    status = PASSED if score == 9.0 else FAILED
    test = TestResult("test_all", "softmax", 1.0, "softmax works", status, "" if status == PASSED else "values differ")
    question = QuestionScore("softmax", 1, 9.0, score, (test,))
    result = GradeResult(assignment, f"{student}.py", (question,), 9.0, score, score, seed=12345)
    return make_row(student=student, assignment=assignment, score=score, error=None,
                    report=json.dumps({"result": to_record(result)}))


def _error(student: str, assignment: str, message: str):
    return make_row(student=student, assignment=assignment, status="error", score=0.0, error=message,
                    report=json.dumps({"error": message}))


ROWS = [
    _graded("ben", "hw1_scaled_attention", 0.0),
    _graded("ada", "hw1_scaled_attention", 9.0),
    _graded("ada", "hw2_rnn_attention", 7.5),
    _graded("ada", "hw3_multi_head", 6.25),
    _graded("cy", "hw3_multi_head", 3.5),
]


def test_score_table_has_a_row_per_student_sorted_with_totals():
    table = score_table(ROWS, ASSIGNMENTS)
    assert [record["student"] for record in table] == ["ada", "ben", "cy"]
    assert table[0] == {"student": "ada", "hw1_scaled_attention": 9.0, "hw2_rnn_attention": 7.5,
                        "hw3_multi_head": 6.25, "total": 22.75}


def test_score_table_leaves_missing_assignments_empty_and_counts_them_as_zero():
    table = {record["student"]: record for record in score_table(ROWS, ASSIGNMENTS)}
    assert table["ben"] == {"student": "ben", "hw1_scaled_attention": 0.0, "hw2_rnn_attention": None,
                            "hw3_multi_head": None, "total": 0.0}
    assert table["cy"]["hw1_scaled_attention"] is None
    assert table["cy"]["total"] == 3.5


def test_score_table_of_no_rows_is_empty():
    assert score_table([], ASSIGNMENTS) == []


def test_csv_has_the_header_and_one_row_per_student(tmp_path):
    path = write_csv(ROWS, ASSIGNMENTS, tmp_path / "out" / "gradebook.csv")
    with path.open(newline="", encoding="utf-8") as handle:
        lines = list(csv.reader(handle))
    assert lines[0] == ["student", *ASSIGNMENTS, "total", "missing"]
    assert lines[1:] == [  # a missing assignment counts 0 in the total: its cell says 0, the last column names it
        ["ada", "9.0", "7.5", "6.25", "22.75", ""],
        ["ben", "0.0", "0.0", "0.0", "0.0", " ".join(ASSIGNMENTS[1:])],
        ["cy", "0.0", "0.0", "3.5", "3.5", " ".join(ASSIGNMENTS[:2])],
    ]
    for line in lines[1:]:
        assert sum(map(float, line[1:-2])) == float(line[-2])


def test_csv_quotes_student_ids_with_commas_and_quotes(tmp_path):
    student = 'Doe, "JJ"'
    path = write_csv([_graded(student, "hw1_scaled_attention", 4.0)], ASSIGNMENTS, tmp_path / "gradebook.csv")
    with path.open(newline="", encoding="utf-8") as handle:
        records = list(csv.DictReader(handle))
    assert [(r["student"], r["hw1_scaled_attention"], r["total"]) for r in records] == [(student, "4.0", "4.0")]


SAFE = re.compile(r"^[\w.~-]+$")


@pytest.mark.parametrize("student", ["../../etc", "..", ".", "a b/c", "/abs/path", "zoë", "王小明", "", "\x00\n", "caf\ufffd"])
def test_safe_name_stays_inside_the_folder(tmp_path, student):
    name = safe_name(student)
    assert SAFE.match(name)
    assert name not in (".", "..")
    assert not name.startswith(".")
    assert (tmp_path / name).resolve().parent == tmp_path.resolve()


def test_write_feedback_writes_students_csv_mapping_ids_to_their_folders(tmp_path):
    students = ["王小明", "Émile", "a b/c", "=cmd"]
    folders = write_feedback([_graded(s, "hw1_scaled_attention", 1.0) for s in students], tmp_path)
    with (tmp_path / "students.csv").open(newline="", encoding="utf-8") as handle:
        mapping = {row["student"].removeprefix("'"): row["folder"] for row in csv.DictReader(handle)}
    assert set(mapping) == set(students)
    assert {tmp_path / folder / "hw1_scaled_attention" for folder in mapping.values()} == set(folders)
    assert mapping["王小明"] == "王小明" and mapping["Émile"] == "Émile"


def test_ids_that_clean_to_the_same_name_get_different_folders():
    assert safe_name("a b") != safe_name("a/b")
    assert safe_name("José") != safe_name("Josè")


def _students_csv(out) -> dict[str, str]:
    with (out / "students.csv").open(newline="", encoding="utf-8") as handle:
        return {row["student"].removeprefix("'"): row["folder"] for row in csv.DictReader(handle)}


@pytest.mark.parametrize("attacker", ["ada_lovelace-" + hashlib.sha256(b"ada lovelace").hexdigest()[:8],
                                      "Ada Lovelace", "ada_lovelace", "ADA_LOVELACE"])
def test_a_student_named_after_another_s_folder_never_writes_into_it(tmp_path, attacker):
    """The report: ``ada_lovelace-<hash>`` shared the folder of ``ada lovelace``, which then held the 0/9 results."""
    victim = "ada lovelace"
    rows = [_graded(victim, ASSIGNMENTS[0], 9.0), _graded(attacker, ASSIGNMENTS[0], 0.0), _graded(attacker, ASSIGNMENTS[1], 0.0)]
    written = write_feedback(rows, tmp_path)
    mapping = _students_csv(tmp_path)
    student_dirs = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert len(student_dirs) == len(mapping) == 2
    assert len({name.casefold() for name in mapping.values()}) == 2  # apart on a case-insensitive file system too
    assert sorted(written) == sorted({tmp_path / mapping[r.student] / r.assignment for r in rows})
    for row in rows:
        results = json.loads((tmp_path / mapping[row.student] / row.assignment / "results.json").read_text(encoding="utf-8"))
        assert results["score"] == row.score, row.student


def test_write_feedback_writes_gradescope_json_and_text_per_student_and_assignment(tmp_path):
    folders = write_feedback(ROWS, tmp_path / "feedback")
    assert sorted(folders) == sorted(tmp_path / "feedback" / r.student / r.assignment for r in ROWS)
    results = json.loads((tmp_path / "feedback" / "ada" / "hw2_rnn_attention" / "results.json").read_text(encoding="utf-8"))
    assert GRADESCOPE_KEYS <= results.keys()
    assert results["score"] == 7.5 and results["tests"][0]["name"] == "Q1 softmax"
    text = (tmp_path / "feedback" / "ada" / "hw2_rnn_attention" / "feedback.txt").read_text(encoding="utf-8")
    assert text.startswith("hw2_rnn_attention: ada.py\nScore: 7.5 / 9\n") and "values differ" in text
    assert "12345" not in text and "12345" not in json.dumps(results), "the run's seed is the instructor's"


def test_every_student_facing_format_of_the_registry_is_a_feedback_file(tmp_path):
    from autograder.report.formats import FORMATS

    (folder,) = write_feedback([_graded("ada", "hw1_scaled_attention", 9.0)], tmp_path)
    expected = {f.feedback_file for f in FORMATS.values() if f.feedback_file}
    assert {p.name for p in folder.iterdir()} == expected and {"results.json", "feedback.txt"} <= expected


def test_write_feedback_for_an_error_row_explains_why_it_was_not_graded(tmp_path):
    message = "the grading process died on this entry"
    (folder,) = write_feedback([_error("kim", "hw1_scaled_attention", message)], tmp_path)
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    assert GRADESCOPE_KEYS <= results.keys()
    assert results["score"] == 0.0
    assert results["tests"] == []
    assert message in results["output"]
    assert message in (folder / "feedback.txt").read_text(encoding="utf-8")


def test_write_feedback_puts_a_hostile_id_inside_the_output_folder(tmp_path):
    out = tmp_path / "feedback"
    (folder,) = write_feedback([_graded("../../escape", "hw1_scaled_attention", 1.0)], out)
    assert out.resolve() in folder.resolve().parents
    assert (folder / "results.json").is_file()
    assert not (tmp_path.parent / "escape").exists()


def test_rows_of_assignments_no_longer_in_the_course_are_left_out_of_the_csv(tmp_path):
    rows = [make_row(student="ada", assignment="hw1", score=5.0), make_row(student="ada", assignment="hw_removed", score=3.0)]
    path = write_csv(rows, ["hw1"], tmp_path / "grades.csv")
    assert path.read_text(encoding="utf-8").splitlines() == ["student,hw1,total,missing", "ada,5.0,5.0,"]


def test_a_student_s_folder_is_the_same_in_an_export_of_one_assignment_given_the_roster(tmp_path):
    everyone = [_graded("ada", ASSIGNMENTS[0], 9.0), _graded("Ada", ASSIGNMENTS[1], 1.0)]  # one folder on macOS/Windows
    write_feedback(everyone, tmp_path / "all")
    write_feedback(everyone[:1], tmp_path / "hw1", roster={"ada", "Ada"})
    assert _students_csv(tmp_path / "hw1")["ada"] == _students_csv(tmp_path / "all")["ada"]
    assert [p.name for p in (tmp_path / "hw1").iterdir() if p.is_dir()] == [_students_csv(tmp_path / "all")["ada"]]


def test_releasing_one_assignment_keeps_the_students_another_release_wrote_in_students_csv(tmp_path):
    out, roster = tmp_path / "feedback", {"ada", "bo"}
    write_feedback([_graded("ada", ASSIGNMENTS[0], 9.0)], out, roster=roster)  # the first assignment's release
    write_feedback([_graded("bo", ASSIGNMENTS[1], 4.0)], out, roster=roster)  # the second's: only bo has rows
    mapping = _students_csv(out)
    assert set(mapping) == {"ada", "bo"}
    assert all((out / folder).is_dir() for folder in mapping.values())
