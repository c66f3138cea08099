"""The batch progress bar and the end-of-batch table, drawn with rich."""

from __future__ import annotations

import shutil
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from autograder.gradebook.reasons import row_reasons
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


def make_console(stderr: bool = False) -> Console:
    """A console that keeps one line per table row when writing to a pipe or a log (standard error for progress)."""
    return Console(width=shutil.get_terminal_size((PIPE_WIDTH, 24)).columns, stderr=stderr)


@contextmanager
def progress_bar(console: Console, total: int, label: str, hidden: bool = False):
    """Yield a callback that advances the bar by one entry (done / total, rate, ETA); ``hidden``: no bar at all.

    Progress belongs on standard error (``make_console(stderr=True)``): standard output keeps the results.
    """
    if hidden:
        yield lambda _row=None: None
        return
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


def _shortened(text: str) -> str:
    first_line = text.splitlines()[0] if text else ""
    return first_line if len(first_line) <= SHOWN_ERROR_CHARS else first_line[: SHOWN_ERROR_CHARS - 1] + "…"


def reasons_cell(row: GradebookRow) -> str:
    """Why the row scored what it did (:func:`autograder.gradebook.reasons.row_reasons`), cut to a few items."""
    reasons = [_shortened(clean_text(reason)) for reason in row_reasons(row)]
    shown = reasons[:SHOWN_DIAGNOSES]
    extra = len(reasons) - len(shown)
    return "; ".join(shown) + (f" +{extra} more" if extra > 0 else "")


def rows_table(rows: list[GradebookRow], title: str) -> Table:
    """Student, assignment, score, lateness and the reasons, one line per row (student text shown as text, never markup)."""
    table = Table(title=title, show_lines=False)
    for name, justify in (("student", "left"), ("assignment", "left"), ("score", "right"), ("late", "right"), ("reasons", "left")):
        table.add_column(name, justify=justify, overflow="fold", no_wrap=name != "reasons")
    for row in rows:
        cells = (clean_name(row.student), row.assignment, f"{row.score:.{SCORE_DIGITS}g} / {row.max_score:g}",
                 str(row.days_late or ""), reasons_cell(row))
        table.add_row(*(Text(cell) for cell in cells))  # Text: never read as rich markup
    return table
