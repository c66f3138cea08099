"""Hostile student text through the real pipeline: graded, then written in every output format, each read by a real parser.

A submission carries the hostile corpus (tests/autograder/hostile_text.py) in the message of the exception its
function raises, in what it prints, in a top-level statement that fails (a load note) and in its file name; its
gradebook row carries a hostile student id. The honest control carries ordinary text that looks like syntax
(``a < b``, ``x|y``, ``2*3``) the same way: it scores the same, and its text reads as written in every output.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from xml.etree import ElementTree

import pytest

from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.export.actions_report import OUTPUT_ENV, SUMMARY_ENV, main as actions_report
from autograder.grade.api import grade_submission
from autograder.report.html import to_html
from autograder.grade.record import to_record
from autograder.report.text import to_gradescope, to_json, to_junit, to_text
from autograder.gradebook.class_report import class_report
from autograder.gradebook.export import STUDENTS_CSV, write_csv, write_feedback
from autograder.paths import SOLUTIONS_DIR
from tests.autograder.gradebook.test_store import make_row
from tests.autograder.hostile_text import (
    AUTOLINK_TRIGGER, FORMULA_STARTS, HOSTILE, HOSTILE_FILE, HOSTILE_ID, HOSTILE_NOTE, ORDINARY, SUMMARY_TAGS, Page,
    hidden_characters, rendered_markdown, visible,
)

pytestmark = pytest.mark.slow

COURSE = load_course()
HW1 = COURSE.assignment("hw1_scaled_attention")
SOLUTION = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
#: The function that raises the text: nothing else calls it, so it alone loses its points.
RAISING = "dot_product_variance"
#: (exception message and printed output, failing top-level statement's message, file name, student id).
SUBMISSIONS = {
    "hostile": (HOSTILE, HOSTILE_NOTE, HOSTILE_FILE, HOSTILE_ID),
    "control": (ORDINARY, ORDINARY, HW1.module, "ada"),
}
#: The head of the hostile file name, before its first steering character (shown as ``\u202e`` after it).
FILE_HEAD = HOSTILE_FILE[:HOSTILE_FILE.index("\u202e")]


def _source(message: str, note: str) -> str:
    return (SOLUTION + f"\nMESSAGE = {message!r}\nprint(MESSAGE)\nraise ValueError({note!r})\n\n\n"
            f"def {RAISING}(d_k, n_samples, rng):\n    raise ValueError(MESSAGE)\n")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    results = {}
    for name, (message, note, file_name, _) in SUBMISSIONS.items():
        path = tmp_path_factory.mktemp(name) / file_name
        path.write_text(_source(message, note), encoding="utf-8")
        results[name] = grade_submission(COURSE, HW1.id, path)
    return results


def _strings(data) -> list[str]:
    if isinstance(data, dict):
        return [*data, *(s for value in data.values() for s in _strings(value))]
    if isinstance(data, list):
        return [s for value in data for s in _strings(value)]
    return [data] if isinstance(data, str) else []


def _raised(name: str) -> str:
    """What the reader must see of the exception the submission raised."""
    return f"ValueError: {visible(SUBMISSIONS[name][0])}"


def test_the_attack_costs_exactly_what_the_honest_control_costs(graded):
    points = {q.function: q.points for q in HW1.questions}
    assert graded["hostile"].score == graded["control"].score == HW1.max_points - points[RAISING]
    assert [q.score for q in graded["hostile"].questions] == [q.score for q in graded["control"].questions]


@pytest.mark.parametrize("name", SUBMISSIONS)
def test_the_job_summary_shows_the_text_and_makes_no_tag_link_image_or_cell(graded, name, tmp_path, monkeypatch):
    record, summary, outputs, results = (tmp_path / f for f in ("record.json", "summary.md", "outputs", "results.json"))
    record.write_text(to_json(graded[name]), encoding="utf-8")
    monkeypatch.setenv(SUMMARY_ENV, str(summary))
    monkeypatch.setenv(OUTPUT_ENV, str(outputs))
    assert actions_report([str(record), "--results", str(results)]) == 0
    markdown = summary.read_text(encoding="utf-8")
    page = rendered_markdown(markdown)
    assert page.tags() <= SUMMARY_TAGS and all(not attrs for _, attrs in page.elements)
    assert AUTOLINK_TRIGGER.search(markdown) is None and hidden_characters(markdown) == []
    rows = [page.cells[start:start + 5] for start in range(0, len(page.cells), 5)]
    assert len(page.cells) == 5 * len(rows) and len(rows) == 1 + len(HW1.questions)
    raising = next(row for row in rows if row[1] == RAISING)
    assert _raised(name) in raising[4]
    assert [line.split("=")[0] for line in outputs.read_text(encoding="utf-8").splitlines()] == ["score", "max_score",
                                                                                                "diagnoses"]
    _check_gradescope(results.read_text(encoding="utf-8"), name)


def _check_gradescope(document: str, name: str) -> None:
    data = json.loads(document)
    assert not [s for s in _strings(data) if hidden_characters(s)]
    assert {data["output_format"], *(t["output_format"] for t in data["tests"]), *(t["name_format"] for t in data["tests"])} \
        == {"text"}
    assert _raised(name) in next(t["output"] for t in data["tests"] if t["name"].endswith(RAISING))


@pytest.mark.parametrize("name", SUBMISSIONS)
def test_json_record_and_gradescope_results_parse_and_keep_the_text(graded, name):
    record = json.loads(to_json(graded[name]))
    assert not [s for s in _strings(record) if hidden_characters(s)]
    assert visible(SUBMISSIONS[name][0]) in record["student_output"]
    if name == "hostile":
        assert record["origin"].startswith(FILE_HEAD)
    _check_gradescope(to_gradescope(graded[name]), name)


@pytest.mark.parametrize("name", SUBMISSIONS)
def test_junit_is_well_formed_and_its_failures_read_as_the_text(graded, name):
    root = ElementTree.fromstring(to_junit(graded[name]))
    failures = [case.find("failure") for case in root.iter("testcase") if case.get("classname") == RAISING]
    assert failures and all(_raised(name) in failure.text for failure in failures)
    texts = [value for element in root.iter() for value in (element.text or "", *element.attrib.values())]
    assert not [text for text in texts if hidden_characters(text)]


@pytest.mark.parametrize("name", SUBMISSIONS)
def test_the_feedback_page_shows_the_text_as_text(graded, name):
    document = to_html(graded[name])
    page = Page(document)
    assert page.unsafe() == [] and hidden_characters(document) == []
    assert _raised(name) in page.text and visible(SUBMISSIONS[name][1]) in page.text
    assert FILE_HEAD in page.text if name == "hostile" else HW1.module in page.text


@pytest.mark.parametrize("name", SUBMISSIONS)
def test_the_text_report_steers_no_terminal_and_every_line_of_the_message_stays_indented(graded, name):
    text = to_text(graded[name])
    assert hidden_characters(text) == []
    assert len([line for line in text.splitlines() if line.startswith(("ok ", "FAIL "))]) == len(HW1.questions)
    shown = {line.strip() for line in text.splitlines()}
    assert all(line.strip() in shown for line in _raised(name).splitlines())
    assert visible(SUBMISSIONS[name][1]) in text


def _rows(graded) -> list:
    rows = []
    for name, (*_, student) in SUBMISSIONS.items():
        result = graded[name]
        record = to_record(result)
        rows.append(make_row(student=student, assignment=HW1.id, score=result.score, max_score=result.max_score,
                             raw_score=result.raw_score, error=None, diagnoses=tuple(record["diagnoses"]),
                             report=json.dumps({"result": record})))
    return rows


def _csv_cells(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        records = list(csv.reader(handle))
    assert len({len(record) for record in records}) == 1, "a cell was split"
    cells = [cell for record in records for cell in record]
    assert not [cell for cell in cells if cell.startswith(FORMULA_STARTS) or "\n" in cell or hidden_characters(cell)]
    return records


def test_the_gradebook_csvs_feedback_files_and_class_report_hold_the_hostile_id_as_text(graded, tmp_path):
    rows = _rows(graded)
    write_csv(rows, [HW1.id], tmp_path / "grades.csv")
    students = [record[0] for record in _csv_cells(tmp_path / "grades.csv")[1:]]
    assert sorted(students) == sorted(["ada", "'" + HOSTILE_ID.replace("\n", "\\x0a").replace("\u202e", "\\u202e")])
    for folder in write_feedback(rows, tmp_path / "feedback"):
        assert Page((folder / "feedback.html").read_text(encoding="utf-8")).unsafe() == []
        assert hidden_characters((folder / "feedback.txt").read_text(encoding="utf-8")) == []
        assert not [s for s in _strings(json.loads((folder / "results.json").read_text(encoding="utf-8"))) if hidden_characters(s)]
    assert len(_csv_cells(tmp_path / "feedback" / STUDENTS_CSV)) == 1 + len(rows)
    page = Page(class_report(COURSE, rows))
    assert page.unsafe() == [] and '=HYPERLINK("http://evil.example","x")\\x0a<script>alert(1)</script>' in page.text
