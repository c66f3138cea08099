"""Wrong versions of :func:`attn_reference.causal_mask`."""

from __future__ import annotations

import numpy as np


def upper_triangular(n: int) -> np.ndarray:
    """Let each position see itself and the *later* positions (``j >= i``)."""
    positions = np.arange(n)
    return positions[None, :] >= positions[:, None]  # (n, n): key index >= query index


def excludes_diagonal(n: int) -> np.ndarray:
    """Let each position see only strictly earlier positions (``j < i``)."""
    positions = np.arange(n)
    return positions[None, :] < positions[:, None]  # (n, n): key index < query index
