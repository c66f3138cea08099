"""The class files course.yml names (``roster.csv``, ``extensions.csv``), read strictly.

Each is a CSV file with a header of known columns, UTF-8 (a spreadsheet's byte-order mark is
fine). Reading stops at the first problem, with a message naming the file and the line:
a missing or unknown column, a row with too many or too few cells, an empty required cell.
The files are the instructor's, but what is in them is shown to students and written to
other files: every value is kept as text, and the writers escape it.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from autograder.errors import GraderError
from autograder.student_text import clean_name

#: Largest class file read, in bytes (a roster of 100,000 students is a few MiB).
MAX_BYTES = 32 * 1024 * 1024


class ClassFileError(GraderError):
    """A class file (roster, extensions) that cannot be read as it stands; the message names the file and line."""


def beside_course(course_file: Path | str, relative: str) -> Path:
    """The file ``relative`` (a course.yml value) names, in the course file's folder."""
    return Path(course_file).resolve().parent / relative


def student_key(student: str) -> str:
    """What two spellings of one student id share: the id in Unicode NFC (macOS writes file names in NFD)."""
    return unicodedata.normalize("NFC", student.strip())


@dataclass(frozen=True)
class Line:
    """One data row of a class file: its cells by column, and where it is (``path:line``)."""

    cells: dict[str, str]
    where: str

    def get(self, column: str) -> str:
        """The cell of ``column``, stripped ("" when empty)."""
        return (self.cells.get(column) or "").strip()

    def required(self, column: str) -> str:
        """The cell of ``column``, which must not be empty.

        Raises
        ------
        ClassFileError
            Naming the line and the column.
        """
        value = self.get(column)
        if not value:
            raise ClassFileError(f"{self.where}: the {column} column is empty")
        return value


def _text(path: Path) -> str:
    try:
        if path.stat().st_size > MAX_BYTES:
            raise ClassFileError(f"{path}: larger than {MAX_BYTES // (1024 * 1024)} MiB")
        return path.read_bytes().decode("utf-8-sig")
    except OSError as error:
        raise ClassFileError(f"cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise ClassFileError(f"{path}: not UTF-8 (byte {error.start}); save it as CSV UTF-8") from None


def read_lines(path: Path, columns: tuple[str, ...], optional: tuple[str, ...] = ()) -> Iterator[Line]:
    """The data rows of the CSV file at ``path``, whose header must hold ``columns`` (and may hold ``optional``).

    Blank lines are skipped. Column names are matched without surrounding spaces, in any order.

    Raises
    ------
    ClassFileError
        When the file cannot be read, a column is missing, unknown or repeated, or a row has a
        different number of cells than the header; the message names the file and the line.
    """
    reader = csv.reader(io.StringIO(_text(path), newline=""), strict=True)
    try:
        header = [name.strip() for name in next(reader, [])]
        if not any(header):
            raise ClassFileError(f"{path}:1: no header; the first line names the columns: {', '.join(columns)}")
        _check_header(path, header, columns, optional)
        for cells in reader:
            where = f"{path}:{reader.line_num}"
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) != len(header):
                raise ClassFileError(f"{where}: {len(cells)} cells, but the header names {len(header)} columns")
            yield Line(dict(zip(header, cells)), where)
    except csv.Error as error:
        raise ClassFileError(f"{path}:{reader.line_num}: not valid CSV: {error}") from None


def _check_header(path: Path, header: list[str], columns: tuple[str, ...], optional: tuple[str, ...]) -> None:
    repeated = sorted({name for name in header if header.count(name) > 1})
    missing = [name for name in columns if name not in header]
    unknown = [clean_name(name) for name in header if name not in columns and name not in optional]
    problems = [f"repeated columns: {', '.join(repeated)}"] if repeated else []
    problems += [f"missing columns: {', '.join(missing)}"] if missing else []
    problems += [f"unknown columns: {', '.join(unknown)}"] if unknown else []
    if problems:
        allowed = ", ".join((*columns, *optional))
        raise ClassFileError(f"{path}:1: {'; '.join(problems)} (the columns are {allowed})")


def class_file_bytes(course, course_file: Path | str) -> bytes:
    """The bytes of the class files that change grades (the extensions file course.yml names), b"" without one.

    A batch's resume key holds them (:func:`autograder.batch.resume.grading_fingerprint`): a
    changed extension grades the class again.
    """
    if not course.extensions:
        return b""
    path = beside_course(course_file, course.extensions)
    try:
        return path.read_bytes()
    except OSError as error:
        raise ClassFileError(f"cannot read {path}: {error.strerror}") from None
