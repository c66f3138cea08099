"""The population constants of hw4's statistical hidden tests, measured again.

The hidden test of softmax_gradient_norm allows a student's mean norm a sampling error that
follows from a population standard deviation measured once with 10^6 samples (its
descriptions quote the population means). Here they are measured again
from the reference's per-sample norms, with a fresh seed, so a wrong constant or a change
of the contract cannot pass unnoticed.
"""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

from attn_reference import softmax, softmax_jacobian
from autograder.grade import estimates
from autograder.layout import CourseDirectory


def _load_hidden(path):
    spec = importlib.util.spec_from_file_location("hidden_test_softmax_gradient_norm", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hidden = _load_hidden(next(CourseDirectory.of().hidden_tests.glob("*/test_softmax_gradient_norm.py")))
SAMPLES = 40_000
SEED = 20270420
STANDARD_ERRORS = 5
#: The sample standard deviation of 40,000 draws is within a few percent of the true one.
SD_RELATIVE_SLACK = 0.05


def per_sample_norms(d_k: int, n_keys: int, scaled: bool, rng: np.random.Generator) -> np.ndarray:
    """||diag(a) - a a^T||_F for each of SAMPLES queries, with the contract's draws."""
    q = rng.standard_normal((SAMPLES, d_k))  # (n, d_k)
    K = rng.standard_normal((SAMPLES, n_keys, d_k))  # (n, n_keys, d_k)
    scores = np.einsum("nkd,nd->nk", K, q) / (math.sqrt(d_k) if scaled else 1.0)  # (n, n_keys)
    return np.linalg.norm(softmax_jacobian(softmax(scores)), axis=(-2, -1))  # (n,)


@pytest.mark.parametrize(("key", "population"), list(hidden.POPULATION.items()), ids=str)
def test_population_mean_and_sd_are_right(key, population):
    d_k, n_keys, scaled = key
    mean, sd = population
    norms = per_sample_norms(d_k, n_keys, scaled, np.random.default_rng(SEED))
    allowed = STANDARD_ERRORS * (norms.std() / math.sqrt(SAMPLES) + hidden.POPULATION_STANDARD_ERROR)
    assert abs(norms.mean() - mean) <= allowed
    assert abs(norms.std() / sd - 1) <= SD_RELATIVE_SLACK


def test_the_statistical_tests_can_tell_scaled_from_unscaled():
    """A scaled estimate can never pass for an unscaled one: the means are far more than the allowed deviation apart."""
    (scaled_mean, scaled_sd), (unscaled_mean, unscaled_sd) = (hidden.POPULATION[(64, hidden.N_KEYS, s)] for s in (True, False))
    deviation = estimates.STANDARD_ERRORS * math.sqrt(2) * max(scaled_sd, unscaled_sd) / math.sqrt(hidden.N_SAMPLES)
    assert scaled_mean - unscaled_mean > 4 * deviation
