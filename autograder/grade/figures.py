"""Small pictures' data kept with a result: attention weights, and the variance experiment's rows.

The result record holds messages and diagnoses; a picture explains some mistakes faster.
Hidden tests keep, through the ``submission`` fixture, the data of a few calls: the worked
example (always), the first failing call of each question whose output is a distribution
(attention weights), and the rows of the variance experiment. Only plain numbers are kept:
2-D slices of at most :data:`MAX_SIDE` x :data:`MAX_SIDE` entries, rounded, non-finite
entries as None. The student's arrays are what the sandbox returned (plain numbers, as for
every comparison); no student code runs here.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

import numpy as np

from autograder.i18n import Message, from_wire, to_wire

#: Largest number of rows and columns of a weights slice kept.
MAX_SIDE = 12
#: Decimals kept of each entry.
DECIMALS = 4

Matrix = tuple[tuple[float | None, ...], ...]


class FigureKind(enum.StrEnum):
    """What a kept figure shows."""

    WEIGHTS = "weights"  # the reference's and the student's distributions (attention weights), side by side
    VARIANCE = "variance"  # one row of the d_k variance experiment


@dataclass(frozen=True)
class WeightsFigure:
    """The reference's and the student's weights for one call, as 2-D slices.

    Attributes
    ----------
    title : str
        What the call was, e.g. "attention on the worked example".
    reference, student : Matrix
        The first batch element's last two axes, cut to :data:`MAX_SIDE`.
    failing : bool
        Whether the student's result was wrong.
    shape, student_shape : tuple of int
        The full shapes the slices come from.
    """

    title: str
    reference: Matrix
    student: Matrix
    failing: bool
    shape: tuple[int, ...] = ()
    student_shape: tuple[int, ...] = ()
    kind: FigureKind = FigureKind.WEIGHTS


@dataclass(frozen=True)
class VarianceRow:
    """One row of the student's variance experiment: d_k, Var(q.k) and Var(q.k / sqrt(d_k))."""

    d_k: int
    var_raw: float | None
    var_scaled: float | None
    kind: FigureKind = FigureKind.VARIANCE


Figure = WeightsFigure | VarianceRow


def _number(value) -> float | None:
    value = float(value)
    return round(value, DECIMALS) if math.isfinite(value) else None


def matrix_slice(array) -> Matrix:
    """The first batch element's last two axes (a 1-D array is one row), cut to MAX_SIDE, as plain numbers."""
    array = np.asarray(array, dtype=float)
    if array.ndim == 0:
        array = array.reshape(1, 1)
    elif array.ndim == 1:
        array = array[None, :]
    else:
        array = array[(0,) * (array.ndim - 2)]
    return tuple(tuple(_number(v) for v in row[:MAX_SIDE]) for row in array[:MAX_SIDE])


def weights_figure(title: str, reference, student, failing: bool) -> WeightsFigure | None:
    """The figure of one call's weights; None when the student's part is not a real numeric array."""
    try:
        student_array = np.asarray(student)
        if student_array.dtype.kind not in "biuf":
            return None
        return WeightsFigure(title, matrix_slice(reference), matrix_slice(student_array), failing,
                             tuple(np.shape(reference)), tuple(student_array.shape))
    except (TypeError, ValueError):
        return None


def variance_row(d_k: int, var_raw, var_scaled) -> VarianceRow:
    return VarianceRow(int(d_k), _number(var_raw), _number(var_scaled))


def figure_record(figure: Figure) -> dict:
    """A figure as plain JSON data."""
    if isinstance(figure, VarianceRow):
        return {"kind": figure.kind.value, "d_k": figure.d_k, "var_raw": figure.var_raw, "var_scaled": figure.var_scaled}
    return {
        "kind": figure.kind.value, "title": figure.title, "failing": figure.failing,
        **({"i18n_title": to_wire(figure.title)} if isinstance(figure.title, Message) else {}),
        "reference": [list(row) for row in figure.reference], "student": [list(row) for row in figure.student],
        "shape": list(figure.shape), "student_shape": list(figure.student_shape),
    }


def _matrix(rows) -> Matrix:
    return tuple(tuple(None if v is None else float(v) for v in row[:MAX_SIDE]) for row in list(rows)[:MAX_SIDE])


def _title(record: dict):
    """A figure's title: the catalog message kept in the record, else its English text."""
    wired = record.get("i18n_title")
    try:
        return from_wire(wired) if isinstance(wired, dict) else str(record["title"])
    except (KeyError, TypeError, ValueError, IndexError):
        return str(record["title"])


def figure_from_record(record: dict) -> Figure | None:
    """The figure a record holds; None for a record of an unknown kind or shape (a later version's)."""
    try:
        kind = FigureKind(record["kind"])
        if kind == FigureKind.VARIANCE:
            return VarianceRow(int(record["d_k"]), record.get("var_raw"), record.get("var_scaled"))
        return WeightsFigure(_title(record), _matrix(record["reference"]), _matrix(record["student"]),
                             bool(record["failing"]), tuple(record.get("shape", ())), tuple(record.get("student_shape", ())))
    except (KeyError, TypeError, ValueError):
        return None


def keep_figure(submission, figure: Figure | None, failing_case: bool = False) -> None:
    """Hand a figure to the ``submission`` fixture (a :class:`~autograder.engine.subject.Subject`), if it keeps them.

    ``failing_case``: the figure shows a failing call, of which one per question is kept.
    """
    if figure is not None and _has_method(submission, "record_figure"):
        submission.record_figure(figure, failing_case)


def wants_failing_case(submission) -> bool:
    """Whether the current test's question still has no failing case drawn."""
    return _has_method(submission, "wants_failing_case") and bool(submission.wants_failing_case())


def _has_method(submission, name: str) -> bool:
    """Whether the object's class defines ``name``: proxies answer any attribute with a call into the student's
    code (``submission.softmax``), so the instance is never asked."""
    return callable(getattr(type(submission), name, None))
