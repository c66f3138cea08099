"""Hidden tests of dot_product_variance (hw1, question 4).

Two kinds of check. Exact: with the documented draw order (q first, then k) the result
must equal the reference's for the same seed, for two different d_k drawn afresh, so a
hard-coded d_k or a formula instead of sampling fails. The accepted estimators
(``np.var``, ``ddof=1``, the mean of squares) all count as exact. Statistical: for q, k
with iid N(0, 1) entries, each product q_i k_i has mean 0, variance 1 and fourth moment 9,
so q.k has variance d_k and fourth central moment 3 d_k^2 + 6 d_k. The sample variance of
n draws then has standard error sqrt((mu4 - sigma^4) / n) = d_k sqrt((2 + 6 / d_k) / n)
(the scaled variance: the same relative error around 1). On each of GENERATORS generators the
estimate must lie within sampling error of the reference's estimate with that same generator,
and the estimates must change with the generator (see autograder.grade.estimates): the
population values alone, returned as constants, pass nothing.
"""

import math

import pytest

from autograder.grade.estimates import expect_estimates
from autograder.grade.expect import expect_reference
from autograder.grade.figures import keep_figure, variance_row

question = pytest.mark.question("dot_product_variance")
FUNCTION = "dot_product_variance"
N_SAMPLES = 1_000  # per generator: as many samples in all as one generator of 2,000 (the allowed error: autograder.grade.estimates)
#: Samples for the exact checks: equality needs no statistics, only the draw order.
EXACT_SAMPLES = 1_000
#: Generators each statistical check draws with: an estimate must follow each of them.
GENERATORS = 2
#: The sizes d_k is drawn from: small ones and ones where scaling matters.
SMALL_D_K = (3, 5, 6, 7, 9)
LARGE_D_K = (16, 24, 32, 48, 64)


def relative_standard_error(d_k: int, n: int) -> float:
    """Standard error of the sample variance of q.k, relative to d_k."""
    return math.sqrt((2 + 6 / d_k) / n)


@question(weight=2)
@pytest.mark.parametrize("sizes", [SMALL_D_K, LARGE_D_K], ids=["small d_k", "large d_k"])
def test_exact_for_the_documented_draw_order(submission, tol, draw, sizes):
    """Equal to the reference for the same seed (q drawn first, then k)."""
    d_k = draw.size(sizes)
    expect_reference(submission, tol, FUNCTION, d_k, EXACT_SAMPLES, draw.seed(), what=f"dot_product_variance(d_k={d_k})")


@question
@pytest.mark.parametrize("sizes", [SMALL_D_K, LARGE_D_K], ids=["small d_k", "large d_k"])
def test_variance_is_d_k_then_one(submission, tol, draw, sizes):
    """Var(q.k) is d_k and Var(q.k / sqrt(d_k)) is 1, within sampling error of the same generator's, and drawn from it."""
    d_k = draw.size(sizes)
    relative = relative_standard_error(d_k, N_SAMPLES)
    names = (f"Var(q.k) for d_k={d_k}", f"Var(q.k/sqrt(d_k)) for d_k={d_k}")  # code: the same in every language
    calls = [((d_k, N_SAMPLES, draw.seed()), {}) for _ in range(GENERATORS)]
    estimates = expect_estimates(submission, FUNCTION, calls, (d_k * relative, relative), names.__getitem__,
                                 ("var_raw", "var_scaled"))
    keep_figure(submission, variance_row(d_k, *estimates[0]))  # the feedback's variance table


@question
def test_one_dimensional_vectors(submission, tol, draw):
    """d_k = 1, the smallest documented size: q.k is a product of two numbers and scaling changes nothing."""
    expect_reference(submission, tol, FUNCTION, 1, EXACT_SAMPLES, draw.seed(), what="dot_product_variance(d_k=1)")


@question
def test_two_samples(submission, tol, draw):
    """n_samples = 2, the smallest documented sample: two dot products still have a variance."""
    d_k = draw.size(SMALL_D_K)
    expect_reference(submission, tol, FUNCTION, d_k, 2, draw.seed(), what=f"dot_product_variance(d_k={d_k}, n_samples=2)")
