"""Submission times from trusted sources: --submitted-at, submitted_at.csv, Gradescope's metadata."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from autograder.errors import GraderError
from autograder.grade.submitted import TimeSource, gradescope_time, read_times_csv

UTC = dt.timezone.utc


def test_gradescope_metadata_gives_created_at(tmp_path):
    metadata = tmp_path / "submission_metadata.json"
    metadata.write_text(json.dumps({"created_at": "2027-03-10T01:02:03.456789-08:00", "users": []}))
    when = gradescope_time(metadata)
    assert when.source == TimeSource.GRADESCOPE
    assert when.at.astimezone(UTC) == dt.datetime(2027, 3, 10, 9, 2, 3, 456789, tzinfo=UTC)


@pytest.mark.parametrize("content, words", [("{}", "no 'created_at'"), ("not json", "cannot read"),
                                            ('{"created_at": "2027-03-10T01:02:03"}', "time zone")])
def test_bad_gradescope_metadata_is_a_grader_error(tmp_path, content, words):
    metadata = tmp_path / "submission_metadata.json"
    metadata.write_text(content)
    with pytest.raises(GraderError, match=words):
        gradescope_time(metadata)


def test_times_csv_reads_students_and_aware_times(tmp_path):
    path = tmp_path / "submitted_at.csv"
    path.write_text("student,submitted_at\nada,2027-03-09T10:00:00+08:00\nben,2027-03-10T00:00:00Z\n")
    assert read_times_csv(path) == {"ada": dt.datetime(2027, 3, 9, 2, tzinfo=UTC), "ben": dt.datetime(2027, 3, 10, tzinfo=UTC)}


@pytest.mark.parametrize(
    "content, words",
    [("name,when\nada,2027-03-09T10:00:00+08:00\n", "needs the columns"),
     ("student,submitted_at\nada,yesterday\n", ":2: 'yesterday' is not an ISO 8601 time"),
     ("student,submitted_at\nada,2027-03-09T10:00:00\n", "needs a time zone"),
     ("student,submitted_at\nada,2027-03-09T10:00:00Z\nada,2027-03-09T11:00:00Z\n", ":3: 'ada' appears twice")],
)
def test_a_bad_times_csv_names_the_line(tmp_path, content, words):
    path = tmp_path / "submitted_at.csv"
    path.write_text(content)
    with pytest.raises(GraderError, match=words):
        read_times_csv(path)
