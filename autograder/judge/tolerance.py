"""How close a result must be to the expected one (course.yml ``rtol`` and ``atol``).

A module of its own, so that running a suite (``check`` in the student kit) needs no reference.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tolerance:
    """``actual`` is close to ``expected`` when ``|actual - expected| <= atol + rtol * |expected|``."""

    rtol: float
    atol: float
