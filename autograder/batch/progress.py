"""The batch progress bar and the end-of-batch table, drawn with rich."""

from __future__ import annotations

import shutil
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from autograder.gradebook.store import GradebookRow
from autograder.student_text import clean_name, clean_text

#: Significant digits of a score in the table.
SCORE_DIGITS = 4
#: Width used when output is not a terminal (a pipe, a CI log), wide enough for one line per row.
PIPE_WIDTH = 140
#: How many diagnosis ids a table cell lists before "+N more".
SHOWN_DIAGNOSES = 3
#: Characters of an error message shown in a table cell (the feedback files hold all of it).
SHOWN_ERROR_CHARS = 60


def make_console() -> Console:
    """A console that keeps one line per table row when writing to a pipe or a log."""
    return Console(width=shutil.get_terminal_size((PIPE_WIDTH, 24)).columns)


@contextmanager
def progress_bar(console: Console, total: int, label: str):
    """Yield a callback that advances the bar by one entry (done / total, rate, ETA)."""
    columns = (
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task(label, total=total, rate="")

        def advance(_row=None) -> None:
            progress.advance(task)
            speed = progress.tasks[task].speed
            progress.update(task, rate=f"{speed:.1f}/s" if speed else "")

        yield advance


def _diagnoses_cell(row: GradebookRow) -> str:
    shown = list(row.diagnoses[:SHOWN_DIAGNOSES])
    extra = len(row.diagnoses) - len(shown)
    return ", ".join(shown) + (f" +{extra} more" if extra > 0 else "")


def _error_cell(error: str) -> str:
    first_line = error.splitlines()[0] if error else ""
    return first_line if len(first_line) <= SHOWN_ERROR_CHARS else first_line[: SHOWN_ERROR_CHARS - 1] + "…"


def rows_table(rows: list[GradebookRow], title: str) -> Table:
    """Student, assignment, score, diagnoses and any error, one line per row (student text shown as text, never markup)."""
    table = Table(title=title, show_lines=False)
    for name, justify in (("student", "left"), ("assignment", "left"), ("score", "right"), ("late", "right"), ("diagnoses / error", "left")):
        table.add_column(name, justify=justify, overflow="fold", no_wrap=name != "diagnoses / error")
    for row in rows:
        note = _error_cell(clean_text(row.error)) if row.error else _diagnoses_cell(row)
        cells = (clean_name(row.student), row.assignment, f"{row.score:.{SCORE_DIGITS}g} / {row.max_score:g}",
                 str(row.days_late or ""), note or "")
        table.add_row(*(Text(cell) for cell in cells))  # Text: never read as rich markup
    return table
