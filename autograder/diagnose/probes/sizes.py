"""A numpy shape error on the student's own line, told in the docstring's names of the sizes it quotes.

numpy says which sizes clashed (``matmul: ... (size 8 is different from 2)``, ``cannot reshape
array of size 30 into shape (5,15)``, ``could not be broadcast together with shapes (2,3) (4,3)``,
``shapes (2,3) and (4,5) not aligned``). The call's sizes all differ by construction, so each
number names its axis: 8 is d_a and 2 is T, 15 is num_heads·n. The finding says which axes that
line combined, which is true whatever the bug; the student sees which one is not meant to be there.
"""

from __future__ import annotations

import itertools
import re

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.probes.calls import batched_arguments
from autograder.diagnose.probes.finding import Finding
from autograder.diagnose.probes.raises import refuses_on_purpose, student_exception
from autograder.diagnose.vocabulary import call_sizes, integer_arguments
from autograder.i18n import Message, msg

_SHAPE = r"\(([\d,\s]*)\)"
#: numpy's shape errors, each with the group(s) that hold its sizes or shapes.
PATTERNS = (
    ("matmul", re.compile(r"size (\d+) is different from (\d+)")),
    ("reshape", re.compile(r"cannot reshape array of size (\d+) into shape " + _SHAPE)),
    ("broadcast", re.compile(r"could not be broadcast together with (?:remapped )?shapes? " + _SHAPE + r"\s*" + _SHAPE)),
    ("aligned", re.compile(r"shapes " + _SHAPE + r" and " + _SHAPE + r" not aligned")),
)


def _named_sizes(case: Case) -> dict[str, int]:
    """Every size of the call with a name: the docstring's, the integer arguments', and the batch sizes."""
    sizes = dict(call_sizes(case.function, case.arguments))
    for name in integer_arguments(case.function):
        value = case.arguments.get(name)
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value > 1:
            sizes.setdefault(name, int(value))
    batch, _ = batched_arguments(case)
    for size in batch:
        if size > 1 and size not in sizes.values():
            sizes.setdefault("B", int(size))  # a batch size (the docstrings write batch axes as ...)
    return sizes


def label(value: int, sizes: dict[str, int]) -> str | None:
    """The name(s) of a size: a size of the call, a product of two, or one off from one (None: no name fits)."""
    if value <= 1:
        return None
    exact = [name for name, size in sizes.items() if size == value]
    if exact:
        return " or ".join(exact)
    products = [f"{a}·{b}" for a, b in itertools.combinations_with_replacement(sizes, 2) if sizes[a] * sizes[b] == value]
    if products:
        return " or ".join(products[:2])
    near = [f"{name} {'-' if size > value else '+'} 1" for name, size in sizes.items() if abs(size - value) == 1]
    return " or ".join(near[:2]) if len(near) == 1 else None


def _said(value: int, sizes: dict[str, int]) -> tuple[str, bool]:
    name = label(value, sizes)
    return (f"{value} ({name})" if name else str(value)), name is not None


def _shape(text: str, sizes: dict[str, int]) -> tuple[str, bool]:
    parts = [_said(int(n), sizes) for n in re.findall(r"\d+", text)]
    return "(" + ", ".join(p for p, _ in parts) + ")", any(named for _, named in parts)


def _described(kind: str, groups: tuple[str, ...], sizes: dict[str, int]) -> tuple[Message, bool]:
    if kind == "matmul":
        (a, one), (b, two) = _said(int(groups[0]), sizes), _said(int(groups[1]), sizes)
        return msg("an axis of size {a} meets one of size {b} in a matrix product", a=a, b=b), one or two
    if kind == "reshape":
        (count, one), (shape, two) = _said(int(groups[0]), sizes), _shape(groups[1], sizes)
        return msg("{count} entries are reshaped into {shape}", count=count, shape=shape), one or two
    (first, one), (second, two) = _shape(groups[0], sizes), _shape(groups[1], sizes)
    return msg("shapes {first} and {second} are combined", first=first, second=second), one or two


def mismatched_sizes(case: Case) -> list[Finding]:
    """A shape error raised by numpy on the student's line, with the clashing sizes named."""
    error = student_exception(case)
    if error is None or error.last_frame is None or refuses_on_purpose(error):
        return []  # no traceback, or the student's own refusal: rejects_valid_input's
    sizes = _named_sizes(case)
    for kind, pattern in PATTERNS:
        found = pattern.search(error.last_line)
        if found:
            described, named = _described(kind, found.groups(), sizes)
            return [Finding("call.mismatched_sizes", {"line": error.last_frame[0], "sizes": described})] if named else []
    return []
