"""Probes of a layer that splits its features into heads: how many heads it ran, and which features each got.

They apply to any graded function taking ``num_heads`` with (d_model, d_model) weights ``W_*``;
the query and key projections' columns and the output projection's rows are laid out head by
head, ``i*d_head`` to ``(i+1)*d_head - 1``.
"""

from __future__ import annotations

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.probes.finding import Finding, own
from autograder.i18n import N_, Message
from autograder.judge.compare import Parts

HEADS = "num_heads"
#: The weight whose rows (not columns) are laid out by head: the output projection.
OUTPUT_WEIGHT = "W_o"


def _heads(case: Case) -> int | None:
    heads = case.arguments.get(HEADS)
    return int(heads) if isinstance(heads, (int, np.integer)) and heads > 0 else None


def split_by_head_size(case: Case) -> list[Finding]:
    """Heads split by their size: a part with the head axis (-3) of size d_model / num_heads where num_heads is
    expected, or the reference's result for d_model / num_heads heads (each of num_heads features)."""
    heads, student = _heads(case), case.student
    if heads is None or not isinstance(student, Parts) or len(student.arrays) != len(case.reference.arrays):
        return []
    d_model = next((np.shape(v)[-1] for n, v in case.arguments.items() if n.startswith("X") and np.ndim(v)), None)
    for got, want in zip(student.arrays, case.reference.arrays):
        if got.ndim != want.ndim or want.ndim < 3 or want.shape[-3] != heads:
            continue
        if d_model and got.shape[-3] == d_model // heads != heads and got.shape[:-3] + got.shape[-2:] == want.shape[:-3] + want.shape[-2:]:
            return own(case.function, "split_by_head_size", got=str(got.shape[-3]), num_heads=str(heads))
    if d_model and d_model % heads == 0 and d_model // heads != heads \
            and case.explains(case.reference_with(**{HEADS: d_model // heads})):  # the split of heads of num_heads features
        return own(case.function, "split_by_head_size", got=str(d_model // heads), num_heads=str(heads))
    return []


def _interleave(d_model: int, heads: int) -> np.ndarray:
    """Position i*d_head + j takes feature j*heads + i: the order a (d_head, heads) reshape reads."""
    return np.arange(d_model).reshape(d_model // heads, heads).T.ravel()


def interleaved_heads(case: Case) -> list[Finding]:
    """The reference with one weight's head blocks read interleaved explains the student's result."""
    heads = _heads(case)
    if heads is None or heads < 2 or not isinstance(case.student, Parts):
        return []
    for name, value in case.arguments.items():
        if not (name.startswith("W_") and isinstance(value, np.ndarray) and value.ndim == 2):
            continue
        rows = name == OUTPUT_WEIGHT
        size = value.shape[0 if rows else 1]
        if size % heads or size // heads < 2:
            continue
        order = _interleave(size, heads)
        changed = value[order] if rows else value[:, order]
        if case.explains(case.reference_with(**{name: changed})):
            return own(case.function, "interleaved_heads", weight=name, what=Message(N_("row") if rows else N_("column"), {}))
    return []
