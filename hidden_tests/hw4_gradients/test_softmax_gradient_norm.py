"""Hidden tests of softmax_gradient_norm (hw4, question 3).

Two kinds of check. Exact: with the documented draw order (q first, then K) the result
must equal the reference's for the same seed, scaled and unscaled, so a different draw
order or a different norm fails. Statistical: on each of GENERATORS generators, the mean over
N samples must lie within sampling error (sigma / sqrt(N) per estimate) of the reference's
mean under the same generator, and change with the generator (autograder.grade.estimates):
the population values, returned as constants, pass nothing. The population standard
deviations of the per-sample norm (and the means quoted in the descriptions) have no closed
form; they were measured with 10^6 samples and are re-measured by
tests/hidden_tests/test_hw4_population.py.
"""

import math

import pytest

from autograder.grade.estimates import expect_estimates
from autograder.grade.expect import expect_reference

question = pytest.mark.question("softmax_gradient_norm")
FUNCTION = "softmax_gradient_norm"
N_SAMPLES = 2_000  # per generator: as many samples in all as one generator of 4,000
#: Generators each statistical check draws with: an estimate must follow each of them.
GENERATORS = 2
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


def _follows_its_generator(submission, draw, d_k: int, scaled: bool) -> None:
    """Within sampling error of the reference's mean norm under the same generator, for GENERATORS generators."""
    mean, sd = POPULATION[(d_k, N_KEYS, scaled)]
    what = f"softmax_gradient_norm(d_k={d_k}, n_keys={N_KEYS}, scaled={scaled})"  # code: the same in every language
    calls = [((d_k, N_KEYS, N_SAMPLES, draw.seed()), {"scaled": scaled}) for _ in range(GENERATORS)]
    expect_estimates(submission, FUNCTION, calls, (sd / math.sqrt(N_SAMPLES),), lambda part: what, ("mean_norm",))


@question
def test_scaled_norm_is_the_same_as_in_the_population(submission, tol, draw):
    """Scaled, d_k = 64, 8 keys: the mean norm (about 0.366) follows the generator it is given, within sampling error."""
    _follows_its_generator(submission, draw, 64, True)


@question
def test_unscaled_norm_has_collapsed(submission, tol, draw):
    """Unscaled, d_k = 64, 8 keys: the mean norm (about 0.152) follows the generator it is given, within sampling error."""
    _follows_its_generator(submission, draw, 64, False)


@question
def test_one_key(submission, tol, draw):
    """n_keys = 1, the smallest documented count: one key always gets weight 1, so J = 0 and the mean norm is 0."""
    d_k = draw.size(EXACT_SIZES["small d_k, unscaled"][0])
    what = f"softmax_gradient_norm(d_k={d_k}, n_keys=1)"  # code: the same in every language
    expect_reference(submission, tol, FUNCTION, d_k, 1, EXACT_SAMPLES, draw.seed(), what=what)
