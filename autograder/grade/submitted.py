"""When a submission was handed in, and who says so.

The late policy needs a time the student cannot forge. File times are not one: ``unzip``
restores them from the student's archive. The trusted sources are, for one submission,
``--submitted-at`` or Gradescope's ``submission_metadata.json`` (its ``created_at``), and for
a class folder a ``submitted_at.csv`` beside the entries (``student,submitted_at``). File
times are used only when asked for (``--file-times``). Without a time, no late penalty is
applied, and every result and gradebook row names the source it used: an entry of a class
folder whose ``submitted_at.csv`` has no row for it says so (:attr:`TimeSource.UNMATCHED`).
"""

from __future__ import annotations

import csv
import datetime as dt
import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from autograder.errors import GraderError

#: The file of submission times in a class folder (it is not an entry).
TIMES_CSV = "submitted_at.csv"
#: Its columns.
TIMES_COLUMNS = ("student", "submitted_at")
#: The key of Gradescope's submission_metadata.json that holds the submission time.
GRADESCOPE_TIME_KEY = "created_at"


class TimeSource(StrEnum):
    """Where a submission time came from (recorded in every result and gradebook row)."""

    OPTION = "--submitted-at"
    CSV = TIMES_CSV
    GRADESCOPE = "submission_metadata.json"
    NBGRADER = "nbgrader's timestamp.txt"
    FILE_TIME = "file time"
    UNMATCHED = f"no row in {TIMES_CSV}"  # the class folder has times, but none for this entry: no late penalty
    NONE = "none"


@dataclass(frozen=True)
class SubmissionTime:
    """A submission time (None when unknown) and its source."""

    at: dt.datetime | None = None
    source: TimeSource = TimeSource.NONE


def _aware(text: str, where: str) -> dt.datetime:
    try:
        moment = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise GraderError(f"{where}: {text.strip()!r} is not an ISO 8601 time") from None
    if moment.tzinfo is None:
        raise GraderError(f"{where}: {text.strip()!r} needs a time zone, e.g. 2027-03-08T23:59:00+08:00")
    return moment


def gradescope_time(metadata: Path) -> SubmissionTime:
    """The ``created_at`` of Gradescope's ``submission_metadata.json``.

    Raises
    ------
    GraderError
        When the file cannot be read or holds no such time.
    """
    try:
        created = json.loads(Path(metadata).read_text(encoding="utf-8")).get(GRADESCOPE_TIME_KEY)
    except (OSError, ValueError, AttributeError) as error:
        raise GraderError(f"cannot read the submission time from {metadata}: {error}") from None
    if not isinstance(created, str):
        raise GraderError(f"{metadata} has no {GRADESCOPE_TIME_KEY!r} time")
    return SubmissionTime(_aware(created, str(metadata)), TimeSource.GRADESCOPE)


def read_times_csv(path: Path) -> dict[str, dt.datetime]:
    """``{student: time}`` from a class folder's ``submitted_at.csv``.

    Raises
    ------
    GraderError
        Naming the line of a missing column, a bad time or a repeated student.
    """
    times: dict[str, dt.datetime] = {}
    try:
        with Path(path).open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            if reader.fieldnames is None or not set(TIMES_COLUMNS) <= set(reader.fieldnames):
                raise GraderError(f"{path} needs the columns {', '.join(TIMES_COLUMNS)}")
            for record in reader:
                where = f"{path}:{reader.line_num}"
                if record["student"] in times:
                    raise GraderError(f"{where}: {record['student']!r} appears twice")
                times[record["student"]] = _aware(record["submitted_at"] or "", where)
    except OSError as error:
        raise GraderError(f"cannot read {path}: {error.strerror}") from None
    return times


def file_time(path: Path) -> dt.datetime | None:
    """When the entry was last changed (untrusted): a file's time, or the newest of a folder's files.

    A folder's own time does not change when a file in it is rewritten in place.
    """
    try:
        if path.is_dir():
            times = [p.stat().st_mtime for p in path.rglob("*") if p.is_file() and not p.is_symlink()]
            stamp = max(times, default=path.stat().st_mtime)
        else:
            stamp = path.stat().st_mtime
    except OSError:
        return None
    return dt.datetime.fromtimestamp(stamp, tz=dt.timezone.utc)
