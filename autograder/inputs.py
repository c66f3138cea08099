"""Inputs that cannot travel as arrays, and how to make them concrete.

A hidden test passes ``RngSeed(7)`` where a function takes a ``numpy.random.Generator``.
The sandbox sends the seed; the worker builds ``np.random.default_rng(7)`` itself, and the
grader builds its own fresh generator from the same seed for the reference and the
mutants, so every side draws the same numbers.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RngSeed:
    """Stands for ``np.random.default_rng(seed)``, created fresh wherever it is used."""

    seed: int

    def generator(self) -> np.random.Generator:
        return np.random.default_rng(self.seed)


def materialize(value):
    """Replace every :class:`RngSeed` in ``value`` (nested in tuples, lists, dicts) with a fresh generator."""
    if isinstance(value, RngSeed):
        return value.generator()
    if isinstance(value, (tuple, list)):
        return type(value)(materialize(v) for v in value)
    if isinstance(value, dict):
        return {k: materialize(v) for k, v in value.items()}
    return value


def fresh(value):
    """A private copy of ``value`` with every :class:`RngSeed` turned into a new generator.

    Arrays are copied (a function that writes into its inputs cannot reach the caller's),
    tuples, lists and dicts rebuilt around copies of their items; numbers, strings and None
    are immutable and kept; anything else is deep-copied.
    """
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, RngSeed):
        return value.generator()
    if isinstance(value, (tuple, list)):
        return type(value)(fresh(v) for v in value)
    if isinstance(value, dict):
        return {k: fresh(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes, np.generic)):
        return value
    return copy.deepcopy(value)
