"""Wrong versions of :func:`attn_reference.dot_product_variance`."""

from __future__ import annotations

import numpy as np
from autograder.mutants import Mutant


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


def variance_divided_by_sqrt(d_k: int, n_samples: int, rng: np.random.Generator) -> tuple[float, float]:
    """``var_scaled = var_raw / sqrt(d_k)``: the variance, not the dot products, divided by sqrt(d_k)."""
    var_raw = float(np.var(_dots(d_k, n_samples, rng)))
    return var_raw, var_raw / np.sqrt(d_k)


def all_pairs(d_k: int, n_samples: int, rng: np.random.Generator) -> tuple[float, float]:
    """Every q against every k (``q @ k.T``) instead of q_i against k_i.

    The student's version builds the ``(n_samples, n_samples)`` matrix; its mean and mean
    square follow from ``d_k``-sized sums, so the diagnosis replays it without the matrix:
    the mean of ``q_i . k_j`` is ``(sum_i q_i) . (sum_j k_j) / n^2`` and the mean of its
    square is ``sum((q^T q) * (k^T k)) / n^2``.
    """
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    pairs = n_samples * n_samples
    mean = float(q.sum(axis=0) @ k.sum(axis=0)) / pairs
    mean_square = float(np.sum((q.T @ q) * (k.T @ k))) / pairs  # (d_k, d_k) products, summed
    var_raw = mean_square - mean * mean
    return var_raw, var_raw / d_k


def summed_over_samples(d_k: int, n_samples: int, rng: np.random.Generator) -> tuple[float, float]:
    """Sum ``q * k`` over the samples (axis 0) instead of the coordinates: d_k sums of n_samples products."""
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.sum(q * k, axis=0)  # (d_k,)
    return float(np.var(dots)), float(np.var(dots / np.sqrt(d_k)))


#: The wrong versions above, each naming its bug (an id of diagnoses.py) in a sub-variant of its own.
MUTANTS: tuple[Mutant, ...] = (
    Mutant("variance.not_sampled", "dot_product_variance", not_sampled),
    Mutant("variance.scaled_by_dk", "dot_product_variance", scaled_by_dk),
    Mutant("variance.scaled_variance_by_sqrt", "dot_product_variance", variance_divided_by_sqrt),
    Mutant("variance.all_pairs", "dot_product_variance", all_pairs),
    Mutant("variance.wrong_sum_axis", "dot_product_variance", summed_over_samples),
)
