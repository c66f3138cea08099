"""What a hidden test's draws promise, as code: the sizes that differ and what its masks block.

Every call a drawing hidden test makes is held to these claims (checked over many seeds by
tests/hidden_tests/test_draw_claims.py, never while grading):

* **sizes differ**: the axes the reference's docstring names in each argument's shape
  (``Q : array_like, shape (..., L_q, d_k)``), the integer size arguments (``num_heads``) and
  the batch axes (aligned from the right, as numpy broadcasts them) all have sizes that differ
  from each other, so a scale by the wrong dimension or a transpose of the wrong axes cannot
  pass by coincidence. Axes of size 1 are exempt (a broadcast axis, or a test of size-1 axes),
  and so are the groups a test declares equal with ``@draws(same=...)``: those must be equal.
* **masks**: in every argument named ``mask``, every row (the last axis) allows at least one
  key, unless the test declares ``empty_rows=True``; with ``blocks=True`` every row has more
  than KEPT_PER_ROW keys, allows at least KEPT_PER_ROW of them (one allowed key has weight 1
  whatever the scores) and blocks at least one (rows allowing none, with ``empty_rows``, aside).
"""

from __future__ import annotations

import functools
import inspect
import re
from dataclasses import dataclass

import numpy as np

from autograder.judge.draw import KEPT_PER_ROW

#: Attribute under which :func:`draws` stores a test's claims.
CLAIMS_ATTRIBUTE = "__draw_claims__"
#: Integer arguments that are not sizes.
NOT_SIZES = ("axis", "n_samples")
#: ``name : ..., shape (..., a, b)`` or ``broadcastable to (...)`` in a numpydoc Parameters section.
_SHAPE = re.compile(r"^\s{4}(\w+(?:, \w+)*) : [^\n]*?(?:shape|broadcastable to) \(([^)]*)\)", re.MULTILINE)
_INTEGER = re.compile(r"^\s{4}(\w+) : int\b", re.MULTILINE)


@dataclass(frozen=True)
class Claims:
    """One test's claims beyond the defaults.

    Attributes
    ----------
    same : tuple of tuple of str
        Groups of axis names the test makes equal on purpose (a square case, self-attention).
    blocks : bool
        Every mask row of more than one key blocks at least one.
    empty_rows : bool
        A mask row may allow no key (a padding query).
    """

    same: tuple[tuple[str, ...], ...] = ()
    blocks: bool = False
    empty_rows: bool = False


def draws(*, same: tuple[tuple[str, ...], ...] = (), blocks: bool = False, empty_rows: bool = False):
    """Declare what a hidden test's draws promise (see the module's docstring).

    Parameters
    ----------
    same : tuple of tuple of str, optional
        Groups of axis names that are equal on purpose.
    blocks : bool, default False
        Whether every mask row blocks at least one key.
    empty_rows : bool, default False
        Whether a mask row may allow no key.

    Returns
    -------
    callable
        A decorator that records the claims on the test and returns it unchanged.
    """
    claims = Claims(tuple(tuple(group) for group in same), blocks, empty_rows)

    def attach(test):
        setattr(test, CLAIMS_ATTRIBUTE, claims)
        return test

    return attach


def claims_of(test) -> Claims:
    """The claims a test declared (the defaults when it declared none)."""
    return getattr(test, CLAIMS_ATTRIBUTE, Claims())


@functools.lru_cache(maxsize=None)
def documented_shapes(function: str) -> dict[str, tuple[str, ...]]:
    """The trailing axis names of each array parameter of ``attn_reference.<function>`` ("..." kept)."""
    from autograder.judge.compare import reference_function

    doc = inspect.getdoc(reference_function(function)) or ""
    doc = "\n" + "\n".join("    " + line for line in doc.split("Returns\n")[0].splitlines())
    shapes = {}
    for names, axes in _SHAPE.findall(doc):
        for name in names.split(", "):
            shapes[name] = tuple(axis.strip() for axis in axes.split(",") if axis.strip())
    return shapes


@functools.lru_cache(maxsize=None)
def integer_sizes(function: str) -> tuple[str, ...]:
    """The parameters of ``attn_reference.<function>`` documented as ``int`` that are sizes."""
    from autograder.judge.compare import reference_function

    doc = "\n" + "\n".join("    " + line for line in (inspect.getdoc(reference_function(function)) or "").splitlines())
    return tuple(name for name in _INTEGER.findall(doc) if name not in NOT_SIZES)


def bound_arguments(function: str, args: tuple, kwargs: dict) -> dict:
    """The call's arguments by parameter name."""
    from autograder.judge.compare import reference_signature

    return dict(reference_signature(function).bind_partial(*args, **kwargs).arguments)


def _axis_sizes(arguments: dict, shapes: dict) -> tuple[dict[str, set[int]], dict[int, set[int]]]:
    """Sizes seen per axis name, and per batch position counted from the right (1 = the last batch axis)."""
    named: dict[str, set[int]] = {}
    batch: dict[int, set[int]] = {}
    for name, value in arguments.items():
        axes = shapes.get(name)
        if axes is None or not isinstance(value, np.ndarray):
            continue
        if axes[-1:] == ("...",):  # (..., n, ...): any axis may be the named one, so every axis counts
            for index, size in enumerate(value.shape):
                named.setdefault(f"axis {index}", set()).add(size)
            continue
        core = tuple(a for a in axes if a != "...")
        own = value.shape[max(value.ndim - len(core), 0):]
        for axis, size in zip(core[len(core) - len(own):], own):
            if axis.isidentifier() and not (name == "mask" and size == 1):
                named.setdefault(axis, set()).add(size)
        for position, size in enumerate(reversed(value.shape[:value.ndim - len(own)]), start=1):
            batch.setdefault(position, set()).add(size)
    return named, batch


def size_problems(function: str, args: tuple, kwargs: dict, claims: Claims) -> list[str]:
    """How one call breaks the claim that its sizes differ (empty when it keeps it)."""
    arguments = bound_arguments(function, args, kwargs)
    named, batch = _axis_sizes(arguments, documented_shapes(function))
    for name in integer_sizes(function):
        if isinstance(arguments.get(name), (int, np.integer)) and not isinstance(arguments[name], bool):
            named.setdefault(name, set()).add(int(arguments[name]))
    problems = [f"{axis} has sizes {sorted(sizes)}" for axis, sizes in named.items() if len(sizes - {1}) > 1]
    sizes = {axis: min(s) for axis, s in named.items()}
    for group in claims.same:
        present = [axis for axis in group if axis in sizes]
        if len({sizes[axis] for axis in present}) > 1:
            problems.append(f"{present} should be equal: {[sizes[axis] for axis in present]}")
    grouped = {axis: group[0] for group in claims.same for axis in group}
    owners: dict[int, set[str]] = {}
    for axis, size in sizes.items():
        owners.setdefault(size, set()).add(grouped.get(axis, axis))
    for position, values in batch.items():
        for size in values:
            owners.setdefault(size, set()).add(f"batch axis -{position}")
    problems += [f"{sorted(names)} all have size {size}" for size, names in owners.items() if size != 1 and len(names) > 1]
    return problems


def mask_problems(function: str, args: tuple, kwargs: dict, claims: Claims) -> list[str]:
    """How one call's ``mask`` breaks the mask claims (empty when it keeps them, or has no mask)."""
    mask = bound_arguments(function, args, kwargs).get("mask")
    if not isinstance(mask, np.ndarray) or mask.ndim == 0:
        return []
    allowed = mask.astype(bool)
    counts = allowed.sum(axis=-1)
    problems = []
    if not claims.empty_rows and not (counts > 0).all():
        problems.append("a mask row allows no key")
    if not claims.blocks:
        return problems
    if mask.shape[-1] <= KEPT_PER_ROW:
        problems.append(f"a mask row of {mask.shape[-1]} keys cannot block one")
    elif not (~allowed).any(axis=-1).all():
        problems.append("a mask row blocks no key")
    elif ((counts > 0) & (counts < KEPT_PER_ROW)).any():
        problems.append(f"a mask row allows fewer than {KEPT_PER_ROW} keys")
    return problems


def call_problems(function: str, args: tuple, kwargs: dict, claims: Claims) -> list[str]:
    """Every claim one call of a hidden test breaks."""
    return size_problems(function, args, kwargs, claims) + mask_problems(function, args, kwargs, claims)
