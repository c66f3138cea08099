"""The public checks' helpers: a wrong value never reads like the expected one."""

from __future__ import annotations

import re

import numpy as np
import pytest

from autograder.check.checklib import CheckFailed, expect_array


@pytest.mark.parametrize("expected, got", [(0.36551, 0.36549), (-2.0, -2.00001), (1234.5678, 1234.5679)])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_a_wrong_value_is_shown_with_digits_enough_to_differ(expected, got, shape):
    wanted = np.full(shape, expected)
    with pytest.raises(CheckFailed) as failure:
        expect_array(np.full(shape, got), wanted, "x", rtol=1e-9, atol=0.0)
    shown = re.search(r"expected (\S+), got (\S+)$", str(failure.value))
    assert shown.group(1) != shown.group(2) and float(shown.group(1)) != float(shown.group(2)), str(failure.value)
