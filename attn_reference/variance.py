"""The d_k variance experiment: why attention divides by sqrt(d_k)."""

from __future__ import annotations

import math

import numpy as np

from attn_reference.contract import Output, OutputKind, graded


#: The d_k of the experiment's table, wherever it is printed (the CLI, the notebook, the demo).
DEFAULT_D_KS = (1, 4, 16, 64, 256, 1024)
#: Samples per row of that table, and the seed of its one generator.
DEFAULT_SAMPLES = 10_000
DEFAULT_SEED = 0

#: Estimators of the variance of a sample whose mean is known to be 0, by name: numpy's
#: ``np.var`` (the documented one), the unbiased ``ddof=1`` one, and the mean of squares.
ESTIMATORS = {
    "variance": lambda x: np.var(x),
    "unbiased": lambda x: np.var(x, ddof=1),
    "mean_of_squares": lambda x: np.mean(np.square(x)),
}


@graded(
    Output("var_raw", OutputKind.NUMBER),
    Output("var_scaled", OutputKind.NUMBER),
    accepted=({"estimator": "unbiased"}, {"estimator": "mean_of_squares"}),
)
def dot_product_variance(
    d_k: int, n_samples: int, rng: np.random.Generator, *, estimator: str = "variance"
) -> tuple[float, float]:
    """Estimate Var(q . k) and Var(q . k / sqrt(d_k)) for standard normal q, k.

    Draw order (part of the contract, so results are reproducible): first
    ``q = rng.standard_normal((n_samples, d_k))``, then
    ``k = rng.standard_normal((n_samples, d_k))``. Variances are ``np.var`` of the
    ``n_samples`` dot products (``ddof=0``). Because q . k is known to have mean 0,
    the unbiased variance (``ddof=1``) and the mean of squares estimate the same
    quantity and are accepted too.

    Parameters
    ----------
    d_k : int
        Dimension of the vectors, at least 1.
    n_samples : int
        Number of (q, k) pairs, at least 2.
    rng : numpy.random.Generator

    Other Parameters
    ----------------
    estimator : {"variance", "unbiased", "mean_of_squares"}
        Which estimator to apply to the dot products (a key of :data:`ESTIMATORS`).

    Returns
    -------
    var_raw : float
        Sample variance of ``q . k``; close to ``d_k``.
    var_scaled : float
        Sample variance of ``q . k / sqrt(d_k)``; close to 1.

    Raises
    ------
    ValueError
        When ``d_k < 1`` or ``n_samples < 2``.
    """
    if d_k < 1 or n_samples < 2:
        raise ValueError(f"need d_k >= 1 and n_samples >= 2, got d_k={d_k}, n_samples={n_samples}")
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.sum(q * k, axis=-1)  # (n_samples,)
    estimate = ESTIMATORS[estimator]
    return float(estimate(dots)), float(estimate(dots / math.sqrt(d_k)))


def variance_table(d_ks=DEFAULT_D_KS, n_samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED) -> np.ndarray:
    """Run :func:`dot_product_variance` for several d_k with one generator.

    Parameters
    ----------
    d_ks : sequence of int
    n_samples : int
    seed : int
        Seed of the single ``np.random.default_rng`` used for every row, in order.

    Returns
    -------
    numpy.ndarray, shape (len(d_ks), 3)
        Columns: d_k, Var(q . k), Var(q . k / sqrt(d_k)).
    """
    rng = np.random.default_rng(seed)
    rows = [(d_k, *dot_product_variance(d_k, n_samples, rng)) for d_k in d_ks]
    return np.array(rows, dtype=np.float64).reshape(len(rows), 3)  # (n_rows, 3)


def format_variance_table(table: np.ndarray) -> str:
    """Render a :func:`variance_table` result as aligned text."""
    lines = [f"{'d_k':>6}  {'Var(q.k)':>10}  {'Var(q.k/sqrt(d_k))':>18}"]
    lines += [f"{int(d_k):>6}  {raw:>10.3f}  {scaled:>18.3f}" for d_k, raw, scaled in table]
    return "\n".join(lines)
