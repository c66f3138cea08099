"""The d_k variance experiment: statistics, reproducibility, the documented draw order."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from attn_reference.variance import dot_product_variance, format_variance_table, variance_table

N_SAMPLES = 4_000
D_KS = (1, 2, 4, 16, 64, 256)
SEEDS = (0, 1, 2)
#: How many standard errors of the sample variance an estimate may be off.
STANDARD_ERRORS = 5
#: Tolerance of the loop recomputation (the reference sums with numpy, the loop with fsum).
LOOP_RTOL = 1e-9
#: format_variance_table prints three decimals, so a parsed value is within half a unit.
PRINTED_ATOL = 0.0005 + 1e-12


def relative_standard_error(d_k: int, n: int) -> float:
    """Relative standard error of the sample variance of n dot products q . k.

    Each term q_i k_i of q, k iid N(0, 1) has mean 0, variance E[q^2] E[k^2] = 1 and fourth
    moment E[q^4] E[k^4] = 3 * 3 = 9. The dot product S is the sum of d_k such iid terms:
        Var S   = d_k,
        E[S^4]  = d_k E[z^4] + 3 d_k (d_k - 1) (E[z^2])^2 = 9 d_k + 3 d_k^2 - 3 d_k = 3 d_k^2 + 6 d_k
    (kurtosis 3 + 6 / d_k). The sample variance of n draws has variance ~ (mu4 - sigma^4) / n
    = (2 d_k^2 + 6 d_k) / n, so relative to sigma^2 = d_k its standard error is
    sqrt((2 + 6 / d_k) / n). Dividing S by sqrt(d_k) scales every variance by 1 / d_k and
    leaves the relative error unchanged.
    """
    return math.sqrt((2 + 6 / d_k) / n)


def allowed_relative_error(d_k: int, n: int) -> float:
    """STANDARD_ERRORS standard errors, plus the 1/n bias of np.var's ddof=0 estimator."""
    return STANDARD_ERRORS * relative_standard_error(d_k, n) + 1 / n


def documented_recipe(d_k: int, n_samples: int, seed: int) -> tuple[float, float]:
    """The documented contract: draw q, then k, each (n_samples, d_k); np.var (ddof=0) of the dots."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n_samples, d_k))  # (n_samples, d_k)
    k = rng.standard_normal((n_samples, d_k))  # (n_samples, d_k)
    dots = (q * k).sum(axis=-1)  # (n_samples,)
    return float(np.var(dots)), float(np.var(dots / math.sqrt(d_k)))


def loop_variances(d_k: int, n_samples: int, seed: int) -> tuple[float, float]:
    """Same draws; dot products and population variances written out as loops."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n_samples, d_k)).tolist()
    k = rng.standard_normal((n_samples, d_k)).tolist()
    dots = [math.fsum(q[s][i] * k[s][i] for i in range(d_k)) for s in range(n_samples)]

    def variance(values):
        mean = math.fsum(values) / len(values)
        return math.fsum((v - mean) ** 2 for v in values) / len(values)

    return variance(dots), variance([d / math.sqrt(d_k) for d in dots])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("d_k", D_KS)
def test_raw_variance_is_close_to_d_k(d_k, seed):
    var_raw, _ = dot_product_variance(d_k, N_SAMPLES, np.random.default_rng(seed))
    assert abs(var_raw / d_k - 1) <= allowed_relative_error(d_k, N_SAMPLES)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("d_k", D_KS)
def test_scaled_variance_is_close_to_one(d_k, seed):
    _, var_scaled = dot_product_variance(d_k, N_SAMPLES, np.random.default_rng(seed))
    assert abs(var_scaled - 1) <= allowed_relative_error(d_k, N_SAMPLES)


@pytest.mark.parametrize("d_k", [1, 3, 8])
def test_variances_match_a_loop_over_the_same_draws(d_k):
    n_samples, seed = 500, 11
    expected = loop_variances(d_k, n_samples, seed)
    actual = dot_product_variance(d_k, n_samples, np.random.default_rng(seed))
    np.testing.assert_allclose(actual, expected, rtol=LOOP_RTOL)


@pytest.mark.parametrize("d_k", [1, 5, 64])
def test_same_seed_gives_identical_floats(d_k):
    first = dot_product_variance(d_k, 1_000, np.random.default_rng(123))
    second = dot_product_variance(d_k, 1_000, np.random.default_rng(123))
    assert first == second
    assert all(isinstance(value, float) for value in first)


@pytest.mark.parametrize("d_k", [1, 5, 64])
def test_documented_draw_order_reproduces_the_result_bit_for_bit(d_k):
    assert dot_product_variance(d_k, 1_000, np.random.default_rng(7)) == documented_recipe(d_k, 1_000, 7)


def test_exactly_two_draws_of_n_samples_by_d_k_are_consumed():
    d_k, n_samples = 3, 50
    used = np.random.default_rng(5)
    dot_product_variance(d_k, n_samples, used)
    reference = np.random.default_rng(5)
    reference.standard_normal((n_samples, d_k))
    reference.standard_normal((n_samples, d_k))
    assert used.bit_generator.state == reference.bit_generator.state


@pytest.mark.parametrize(("d_k", "n_samples"), [(0, 10), (-1, 10), (4, 1), (4, 0)])
def test_invalid_d_k_or_n_samples_raise_value_error_naming_them(d_k, n_samples):
    with pytest.raises(ValueError, match=re.escape(f"d_k={d_k}, n_samples={n_samples}")):
        dot_product_variance(d_k, n_samples, np.random.default_rng(0))


def test_variance_table_has_one_row_per_d_k_and_d_k_in_the_first_column():
    d_ks = [1, 4, 16, 64]
    table = variance_table(d_ks, n_samples=500, seed=3)
    assert table.shape == (len(d_ks), 3)
    assert table.dtype == np.float64
    np.testing.assert_array_equal(table[:, 0], d_ks)


def test_variance_table_rows_share_one_generator_in_order():
    d_ks, n_samples, seed = [2, 8, 2], 300, 9
    rng = np.random.default_rng(seed)
    expected = [dot_product_variance(d_k, n_samples, rng) for d_k in d_ks]
    table = variance_table(d_ks, n_samples=n_samples, seed=seed)
    np.testing.assert_array_equal(table[:, 1:], expected)
    assert table[0, 1] != table[2, 1]  # the third row continues the stream, it does not restart


def test_variance_table_of_no_d_ks_is_empty_with_three_columns():
    assert variance_table([], n_samples=10).shape == (0, 3)


def test_variance_table_is_reproducible_for_a_seed():
    np.testing.assert_array_equal(variance_table([1, 32], 200, seed=4), variance_table([1, 32], 200, seed=4))


def test_format_variance_table_prints_every_row_to_three_decimals():
    table = variance_table([1, 16, 128], n_samples=400, seed=0)
    lines = format_variance_table(table).splitlines()
    assert len(lines) == 1 + len(table)
    assert lines[0].split()[0] == "d_k"
    for line, (d_k, raw, scaled) in zip(lines[1:], table):
        printed_d_k, printed_raw, printed_scaled = line.split()
        assert int(printed_d_k) == d_k
        assert abs(float(printed_raw) - raw) <= PRINTED_ATOL
        assert abs(float(printed_scaled) - scaled) <= PRINTED_ATOL
