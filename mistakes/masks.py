"""Wrong versions of :func:`attn_reference.causal_mask`."""

from __future__ import annotations

import numpy as np
from autograder.mutants import Mutant


def upper_triangular(n: int) -> np.ndarray:
    """Let each position see itself and the *later* positions (``j >= i``)."""
    positions = np.arange(n)
    return positions[None, :] >= positions[:, None]  # (n, n): key index >= query index


def excludes_diagonal(n: int) -> np.ndarray:
    """Let each position see only strictly earlier positions (``j < i``)."""
    positions = np.arange(n)
    return positions[None, :] < positions[:, None]  # (n, n): key index < query index


#: The wrong versions above, each naming its bug (an id of diagnoses.py) in a sub-variant of its own.
MUTANTS: tuple[Mutant, ...] = (
    Mutant("causal_mask.upper_triangular", "causal_mask", upper_triangular),
    Mutant("causal_mask.excludes_diagonal", "causal_mask", excludes_diagonal),
)
