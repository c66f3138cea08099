"""Hidden tests of softmax_gradient_norm (hw4, question 3).

Two kinds of check. Exact: with the documented draw order (q first, then K) the result
must equal the reference's for the same seed, scaled and unscaled, so a different draw
order or a different norm fails. Statistical: the mean over N samples must lie within
STANDARD_ERRORS standard errors sigma / sqrt(N) of the population mean. The population
means and standard deviations of the per-sample norm have no closed form; they were
measured with 10^6 samples (standard error below 2e-4) and are re-measured by
tests/autograder/hidden_tests/test_hw4_population.py.
"""

import math

import numpy as np
import pytest

from autograder.grade.expect import expect, expect_reference
from autograder.i18n import msg

question = pytest.mark.question("softmax_gradient_norm")
FUNCTION = "softmax_gradient_norm"
STANDARD_ERRORS = 5
N_SAMPLES = 4_000
#: Samples for the exact checks: equality needs no statistics, only the draw order.
EXACT_SAMPLES = 500
N_KEYS = 8
#: (d_k, n_keys, scaled) -> (mean, standard deviation) of ||J||_F for one sample.
POPULATION = {
    (64, N_KEYS, True): (0.36552, 0.02491),
    (64, N_KEYS, False): (0.15158, 0.17147),
}
#: Standard error of the measured population means (10^6 samples).
POPULATION_STANDARD_ERROR = 2e-4


#: (d_k sizes, n_keys sizes) the exact checks draw from: large d_k where scaling matters, and small ones.
EXACT_SIZES = {"large d_k, scaled": ((32, 48, 64), (6, 7, 8), True), "small d_k, unscaled": ((5, 9, 16), (3, 4, 5), False)}


@question(weight=2)
@pytest.mark.parametrize("case", sorted(EXACT_SIZES))
def test_exact_for_the_documented_draw_order(submission, tol, draw, case):
    """Equal to the reference for the same seed (q drawn first, then K)."""
    d_ks, key_counts, scaled = EXACT_SIZES[case]
    d_k, n_keys = draw.size(d_ks), draw.size(key_counts)
    what = f"softmax_gradient_norm(d_k={d_k}, n_keys={n_keys}, scaled={scaled})"  # code: the same in every language
    expect_reference(submission, tol, FUNCTION, d_k, n_keys, EXACT_SAMPLES, draw.seed(), scaled=scaled, what=what)


def _mean_norm(submission, d_k: int, scaled: bool, seed) -> float:
    result = np.asarray(submission.call(FUNCTION, d_k, N_KEYS, N_SAMPLES, seed, scaled=scaled))
    expect(result.size == 1, msg("softmax_gradient_norm should return one number, got an array of shape {shape}",
                                 shape=str(result.shape)))
    return float(result.ravel()[0])


def _allowed_deviation(sd: float) -> float:
    return STANDARD_ERRORS * (sd / math.sqrt(N_SAMPLES) + POPULATION_STANDARD_ERROR)


@question
def test_scaled_norm_is_the_same_as_in_the_population(submission, tol, draw):
    """Scaled, d_k = 64, 8 keys: the mean norm is about 0.366, within sampling error."""
    mean, sd = POPULATION[(64, N_KEYS, True)]
    actual = _mean_norm(submission, 64, True, draw.seed())
    expect(abs(actual - mean) <= _allowed_deviation(sd),
           msg("scaled mean ||J||_F for d_k=64, 8 keys should be close to {mean}, got {got}", mean=f"{mean:.3f}", got=f"{actual:.4g}"))


@question
def test_unscaled_norm_has_collapsed(submission, tol, draw):
    """Unscaled, d_k = 64, 8 keys: the mean norm has fallen to about 0.152, within sampling error."""
    mean, sd = POPULATION[(64, N_KEYS, False)]
    actual = _mean_norm(submission, 64, False, draw.seed())
    expect(abs(actual - mean) <= _allowed_deviation(sd),
           msg("unscaled mean ||J||_F for d_k=64, 8 keys should be close to {mean}, got {got}", mean=f"{mean:.3f}", got=f"{actual:.4g}"))
