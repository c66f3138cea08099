"""Wrong versions of :func:`attn_reference.dot_product_variance`."""

from __future__ import annotations

import math

import numpy as np

#: The ``ddof`` of the unbiased sample variance a student may use by mistake.
UNBIASED_DDOF = 1


def _dots(d_k: int, n_samples: int, rng: np.random.Generator) -> np.ndarray:
    """The reference's draws: q first, then k, one dot product per sample."""
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    return np.sum(q * k, axis=-1)  # (n_samples,)


def not_sampled(d_k: int, n_samples: int, rng: np.random.Generator) -> tuple[float, float]:
    """Return the theoretical variances ``(d_k, 1)`` without drawing anything."""
    return float(d_k), 1.0


def scaled_by_dk(d_k: int, n_samples: int, rng: np.random.Generator) -> tuple[float, float]:
    """Divide the dot products by ``d_k`` instead of ``sqrt(d_k)``."""
    dots = _dots(d_k, n_samples, rng)
    return float(np.var(dots)), float(np.var(dots / d_k))


def unbiased_variance(d_k: int, n_samples: int, rng: np.random.Generator) -> tuple[float, float]:
    """Use ``ddof=1`` instead of numpy's default ``ddof=0``."""
    dots = _dots(d_k, n_samples, rng)
    scaled = dots / math.sqrt(d_k)
    return float(np.var(dots, ddof=UNBIASED_DDOF)), float(np.var(scaled, ddof=UNBIASED_DDOF))
