"""The estimator of a sampling experiment, fitted from the student's answers on the documented draws: named with its
formula when one fits exactly, never when the draws themselves differ or the estimator is the documented one."""

from __future__ import annotations

import math

import numpy as np
import pytest

from autograder.diagnose.probes import estimator, patterns
from autograder.diagnose.probes.finding import Finding
from autograder.inputs import RngSeed
from tests.autograder.diagnose.test_probes import case_of, variance_student

N = 500


def _case(statistic, d_k=6, seed=11):
    return case_of("dot_product_variance", (d_k, N, RngSeed(seed)), student=variance_student(statistic), recall=True)


@pytest.mark.parametrize(("statistic", "formula"), [
    (lambda x: np.mean(x ** 2) - np.mean(x), "mean(x²) - mean(x)"),  # the square of the mean forgotten
    (lambda x: np.mean(x ** 2), "mean(x²)"),  # not centred
    (lambda x: np.var(x, ddof=1), "n/(n-1)·(mean(x²) - mean(x)²)"),
    (lambda x: 0.5 * np.mean(x ** 2) - 0.5 * np.mean(x) ** 2, "0.5·(mean(x²) - mean(x)²)"),
])
def test_moment_estimator_names_the_fitted_formula(statistic, formula):
    assert estimator.moment_estimator(_case(statistic)) == [Finding("variance.estimator", {"formula": formula})]


def test_moment_estimator_is_what_the_right_sized_fallback_names():
    case = _case(lambda x: np.mean(x ** 2) - np.mean(x))
    assert patterns.variance_of_other_draws(case) == [Finding("variance.estimator", {"formula": "mean(x²) - mean(x)"})]


def test_moment_estimator_silent_on_the_documented_variance_other_draws_and_other_statistics():
    assert estimator.moment_estimator(_case(np.var)) == []
    reordered = case_of("dot_product_variance", (6, N, RngSeed(11)), recall=True,
                        student=variance_student(draws=lambda rng: tuple(rng.standard_normal((2, 6, N)).transpose(0, 2, 1))))
    assert estimator.moment_estimator(reordered) == []  # other draws: no moment estimator of the documented ones fits
    assert estimator.moment_estimator(_case(lambda x: np.median(np.abs(x)) ** 2)) == []  # not a moment estimator
    no_recall = case_of("dot_product_variance", (6, N, RngSeed(11)), student=variance_student(lambda x: np.mean(x ** 2)))
    assert estimator.moment_estimator(no_recall) == []  # one seed's answers cannot fit three coefficients


def test_formula_leaves_out_zero_terms_and_rounds_whole_coefficients():
    assert estimator.formula((1.0, 0.0, -1.0), N) == "mean(x²) - mean(x)"
    assert estimator.formula((2.0, 0.0, 0.5), N) == "2·mean(x²) + 0.5·mean(x)"
    assert math.isclose(N / (N - 1), 1.002004, rel_tol=1e-6)
