"""The variance mutants that compute a student's mistake another way give what the mistake gives."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.mutants import mutant

all_pairs = mutant("variance.all_pairs").implementation


@pytest.mark.parametrize(("d_k", "n_samples", "seed"), [(3, 50, 0), (16, 200, 1), (64, 300, 2), (1, 7, 3)])
def test_all_pairs_equals_the_variance_of_the_whole_pair_matrix(d_k, n_samples, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((n_samples, d_k)), rng.standard_normal((n_samples, d_k))
    dots = q @ k.T  # (n_samples, n_samples): the student's matrix
    expected = (np.var(dots), np.var(dots / np.sqrt(d_k)))
    np.testing.assert_allclose(all_pairs(d_k, n_samples, np.random.default_rng(seed)), expected, rtol=1e-10)
