"""What the course's reference docstrings say about each argument: its named axes, whether it is a mask.

The course documents every graded function in numpydoc, with a shapes vocabulary::

    Q : array_like, shape (..., L_q, d_k)
    mask : array_like of bool or 0/1, broadcastable to (..., L_q, L_k), optional

The engine reads those lines instead of keeping a table of its own: :func:`argument_shapes`
gives, for each documented array argument, its trailing axis names (``("L_q", "d_k")``),
whether leading batch axes are allowed (the ``...``), and whether it is a boolean mask.
Axes written as an expression (``d_s + d_h``) or a number are kept as ``None``: they name no
single size. Sizes that share a name in several arguments are one size of the call.
"""

from __future__ import annotations

import functools
import inspect
import re
from dataclasses import dataclass

import numpy as np

from autograder.judge.compare import reference_function

#: A parameter line of a numpydoc section: ``name : description``.
PARAMETER_LINE = re.compile(r"^(?P<names>[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*:\s*(?P<kind>.*)$")
#: The shape part of a description: ``shape (...)`` or ``broadcastable to (...)``.
SHAPE = re.compile(r"(?:shape|broadcastable to)\s*\((?P<axes>[^)]*)\)")
#: An axis that is one named size.
AXIS_NAME = re.compile(r"^[A-Za-z_]\w*$")
#: Words of a description that make the argument a boolean mask.
MASK_WORDS = ("of bool",)


@dataclass(frozen=True)
class ArgumentShape:
    """One documented array argument.

    Attributes
    ----------
    axes : tuple of (str or None)
        The trailing axes, named; None for an axis written as an expression or a number.
    written : tuple of str
        Each trailing axis as the docstring writes it (``"d_s + d_h"`` for an expression).
    batched : bool
        Whether leading batch axes (``...``) are allowed.
    mask : bool
        Whether the argument is a boolean (or 0/1) mask.
    broadcastable : bool
        Whether the docstring says it only needs to broadcast to its shape.
    """

    axes: tuple[str | None, ...]
    batched: bool
    mask: bool
    broadcastable: bool
    written: tuple[str, ...] = ()

    def sizes(self, value) -> dict[str, int]:
        """The named sizes ``value`` has (its trailing axes, right-aligned); empty when it is not an array."""
        shape = np.shape(value) if isinstance(value, np.ndarray) else ()
        if len(shape) < len(self.axes):
            return {}
        trailing = shape[len(shape) - len(self.axes):]
        return {name: size for name, size in zip(self.axes, trailing) if name is not None and size != 1}


def _parameters_section(doc: str) -> list[str]:
    """The lines of the docstring's Parameters section, up to the next section."""
    lines = doc.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Parameters")
    except StopIteration:
        return []
    section = []
    for previous, line in zip(lines[start + 1:], lines[start + 2:]):
        if set(line.strip()) == {"-"} and previous.strip() and section:
            section.pop()  # the title of the next section
            break
        section.append(line)
    return section


def parse_shape(description: str) -> ArgumentShape | None:
    """The :class:`ArgumentShape` a parameter's description states, or None when it states no shape."""
    found = SHAPE.search(description)
    if found is None:
        return None
    parts = [part.strip() for part in found.group("axes").split(",") if part.strip()]
    batched = bool(parts) and parts[0] == "..."
    trailing = parts[1 if batched else 0:]
    if "..." in trailing:
        return None  # axes around an axis argument: no fixed trailing names
    axes = tuple(part if AXIS_NAME.match(part) else None for part in trailing)
    mask = any(word in description for word in MASK_WORDS)
    return ArgumentShape(axes, batched, mask, "broadcastable to" in description, tuple(trailing))


@functools.lru_cache(maxsize=None)
def argument_shapes(function: str) -> dict[str, ArgumentShape]:
    """The documented array arguments of the reference's ``function``, by name (empty when none is documented)."""
    doc = inspect.getdoc(reference_function(function)) or ""
    shapes = {}
    for line in _parameters_section(doc):
        match = PARAMETER_LINE.match(line)
        if match is None or line.startswith((" ", "\t")):
            continue
        shape = parse_shape(match.group("kind"))
        if shape is not None:
            shapes.update((name, shape) for name in _names(match))
    return shapes


def _names(match: re.Match) -> list[str]:
    """The parameter names of a numpydoc line, one or several (``W_q, W_k : array_like, shape (d, d)``)."""
    return [name.strip() for name in match.group("names").split(",")]


def call_sizes(function: str, arguments: dict) -> dict[str, int]:
    """The named sizes of one call (``{"L_q": 4, "d_k": 5, ...}``); a size-1 (broadcast) axis says nothing."""
    sizes: dict[str, int] = {}
    for name, shape in argument_shapes(function).items():
        for axis, size in shape.sizes(arguments.get(name)).items():
            sizes.setdefault(axis, size)
    return sizes


@functools.lru_cache(maxsize=None)
def integer_arguments(function: str) -> tuple[str, ...]:
    """The arguments the docstring documents as ``int`` (counts and sizes such as ``n_samples``), in order."""
    doc = inspect.getdoc(reference_function(function)) or ""
    return tuple(name for line in _parameters_section(doc) if (m := PARAMETER_LINE.match(line))
                 and not line.startswith((" ", "\t")) and m.group("kind").strip().split(",")[0] == "int"
                 for name in _names(m))


def sum_terms(written: str) -> tuple[str, ...] | None:
    """The named sizes of an axis written as their sum (``"d_s + d_h"`` -> ``("d_s", "d_h")``), else None."""
    terms = tuple(term.strip() for term in written.split("+"))
    return terms if len(terms) > 1 and all(AXIS_NAME.match(term) for term in terms) else None


def frozen_axes(function: str) -> set[str]:
    """Names that occur inside an axis expression other than a sum, or as an integer argument: sizes that cannot
    be changed alone (a sum of sizes is cut block by block)."""
    doc = inspect.getdoc(reference_function(function)) or ""
    inputs = re.split(r"\n(?:Returns|Yields)\n", doc)[0]  # an expression in a result's shape follows the inputs
    expressions = set(re.findall(r"[A-Za-z_]\w*", " ".join(
        part for found in SHAPE.finditer(inputs) for part in found.group("axes").split(",")
        if not AXIS_NAME.match(part.strip()) and sum_terms(part) is None)))
    integers = {name for line in _parameters_section(doc) if (m := PARAMETER_LINE.match(line))
                and m.group("kind").strip().startswith("int") for name in _names(m)}
    return expressions | integers
