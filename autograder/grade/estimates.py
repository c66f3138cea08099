"""Statistical answers that must come from the generator they are given.

An experiment such as ``dot_product_variance(d_k, n, rng)`` returns estimates drawn with
``rng``. A hidden test cannot demand the reference's exact numbers only (a student may
legitimately draw in another order), nor accept anything close to the population value
(a constant copied from the test would pass). :func:`expect_estimates` asks for both of
what only real sampling gives: on each of several generators, the student's estimate lies
within sampling error of the reference's estimate under *the same generator state* (equal
to it for the documented draw order), and the estimates differ from one generator to the
next by at least a sliver of a standard error (a constant is named as such).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from autograder.judge.compare import reference_output
from autograder.judge.messages import distinct_numbers
from autograder.grade.expect import expect
from autograder.i18n import msg

#: Standard errors the student's estimate may be from the reference's, when both are independent draws.
STANDARD_ERRORS = 5
#: Estimates of different generators closer together than this share of a standard error are one constant:
#: two independent draws fall that close with a probability of about 6e-7 (a constant, or a constant with a
#: jitter far below sampling noise, is that close every time).
SPREAD_FLOOR = 1e-6


def _parts(value) -> tuple[float, ...]:
    parts = value if isinstance(value, tuple) else (value,)
    return tuple(float(np.asarray(part, dtype=float).ravel()[0]) for part in parts)


def expect_estimates(submission, function: str, calls: Sequence[tuple[tuple, dict]], standard_error: Sequence[float],
                     what: Callable[[int], str], names: Sequence[str]) -> list[tuple[float, ...]]:
    """Require the student's estimates to come from the generators of ``calls``.

    Parameters
    ----------
    submission : Subject
        What calls the student's function.
    function : str
        The graded function.
    calls : sequence of (args, kwargs)
        Calls that differ only in their generator (an :class:`~autograder.inputs.RngSeed`).
    standard_error : sequence of float
        The standard error of each returned number, for one call.
    what : callable
        ``what(part)``: the name of returned number ``part`` in messages.
    names : sequence of str
        The returned numbers' names, for a result of the wrong size.

    Returns
    -------
    list of tuple of float
        The student's numbers, per call.

    Raises
    ------
    CheckFailed
        When a result has the wrong size, lies outside sampling error of the reference's
        estimate with the same generator, or does not change with the generator.
    """
    estimates = []
    for args, kwargs in calls:
        result = submission.call(function, *args, **kwargs)
        parts = result if isinstance(result, tuple) else (result,)
        expect(len(parts) == len(names) and all(np.size(part) == 1 for part in parts),
               msg("{function} should return {names}, one number each", function=function, names=", ".join(names)))
        estimates.append(_parts(result))
        _within_sampling_error(estimates[-1], _parts(reference_output(function, args, kwargs)), standard_error, what)
    for part, error in enumerate(standard_error):
        values = [estimate[part] for estimate in estimates]
        expect(max(values) - min(values) >= SPREAD_FLOOR * error,
               msg("{what} is the same ({value}) for {count} different generators: it must be drawn from the generator "
                   "it is given", what=what(part), value=f"{values[0]:.6g}", count=str(len(values))))
    return estimates


def _within_sampling_error(got: tuple[float, ...], expected: tuple[float, ...], standard_error, what) -> None:
    for part, (value, reference, error) in enumerate(zip(got, expected, standard_error)):
        allowed = STANDARD_ERRORS * math.sqrt(2) * error  # two independent estimates of the same mean
        shown = f"{reference:.4g}", f"{value:.4g}"
        shown = distinct_numbers(reference, value) if shown[0] == shown[1] else shown  # never "0.3655, got 0.3655"
        expect(math.isfinite(value) and abs(value - reference) <= allowed,
               msg("{what} should be within sampling error of {expected} (the estimate drawn from the same generator), "
                   "got {got}", what=what(part), expected=shown[0], got=shown[1]))
