"""Hidden tests of softmax_backward (hw4, question 1). Inputs are drawn afresh on every run."""

import numpy as np
import pytest

from attn_reference import numerical_gradient, softmax
from autograder.judge.compare import Tolerance
from autograder.grade.expect import expect, expect_reference
from autograder.judge.messages import first_mismatch
from autograder.i18n import msg
from autograder.judge.claims import draws

question = pytest.mark.question("softmax_backward")
FUNCTION = "softmax_backward"
#: Centred differences with eps = 1e-5 on values of order 1 are good to about 1e-9.
NUMERICAL_TOLERANCE = Tolerance(rtol=1e-5, atol=1e-7)
#: Spread of the scores the weights come from.
SPREAD = 2.0


def _weights_and_upstream(draw, shape: tuple, axis: int = -1, dtype=np.float64):
    """A = softmax(S) along ``axis`` and an upstream gradient dA, both of ``shape``."""
    weights = softmax(draw.normal(shape, SPREAD), axis=axis)
    return weights.astype(dtype), draw.normal(shape, dtype=dtype)


def _batched_shape(draw, ndim: int) -> tuple[int, ...]:
    """A shape of ``ndim`` axes, all different (so a reduction over the wrong axis shows)."""
    return draw.sizes(ndim)


@question
def test_row_worked_out_by_hand(submission, tol):
    """A = [0.5, 0.25, 0.25] and dA = [1, 0, 0] give dS = [0.25, -0.125, -0.125]."""
    expect_reference(submission, tol, FUNCTION, np.array([0.5, 0.25, 0.25]), np.array([1.0, 0.0, 0.0]),
                     what=msg("softmax_backward of one row"))


@question(weight=2)
def test_random_batched_last_axis(submission, tol, draw):
    """Weights of a batched softmax over the last axis."""
    shape = _batched_shape(draw, 3)
    expect_reference(submission, tol, FUNCTION, *_weights_and_upstream(draw, shape), what=msg("softmax_backward of a {shape} batch", shape=str(shape)))


@question
@draws(same=(("axis 0", "axis 1"),))
def test_square_rows(submission, tol, draw):
    """A square matrix of rows: the sum must keep its axis to broadcast back along the row."""
    n = draw.size()
    expect_reference(submission, tol, FUNCTION, *_weights_and_upstream(draw, (n, n)), what=msg("softmax_backward of a {shape} matrix", shape=str((n, n))))


@question
def test_axis_0(submission, tol, draw):
    """axis=0: every column of a matrix is its own softmax."""
    shape = _batched_shape(draw, 2)
    expect_reference(submission, tol, FUNCTION, *_weights_and_upstream(draw, shape, axis=0), axis=0,
                     what=msg("softmax_backward(A, dA, axis=0)"))


@question
def test_middle_axis(submission, tol, draw):
    """Every axis of a 3-D array, the middle one included, counted from either end."""
    shape = _batched_shape(draw, 3)
    for axis in (*range(len(shape)), *range(-len(shape), 0)):
        expect_reference(submission, tol, FUNCTION, *_weights_and_upstream(draw, shape, axis=axis), axis=axis,
                         what=msg("softmax_backward(A, dA, axis={axis})", axis=str(axis)))


@question
def test_masked_weights_get_exactly_zero_gradient(submission, tol, draw):
    """Weights that are exactly 0 (masked scores) get a gradient of exactly 0."""
    shape = _batched_shape(draw, 2)
    scores = np.where(draw.mask(shape), draw.normal(shape, SPREAD), -np.inf)
    weights = softmax(scores)
    actual = expect_reference(submission, tol, FUNCTION, weights, draw.normal(shape), what=msg("softmax_backward with masked weights"))
    if actual is not None:
        expect(np.all(np.asarray(actual)[weights == 0] == 0),
               msg("softmax_backward: masked weights (exactly 0) should get a gradient of exactly 0"))


@question
def test_float32_stays_float32(submission, tol, draw):
    """float32 weights and upstream gradient give a float32 dS."""
    shape = _batched_shape(draw, 2)
    expect_reference(submission, tol, FUNCTION, *_weights_and_upstream(draw, shape, dtype=np.float32),
                     what=msg("softmax_backward of float32 input"))


@question
def test_float32_weights_with_a_float64_gradient_give_float64(submission, tol, draw):
    """float32 A with a float64 dA: not every input is float32, so dS is float64 (as numpy's own promotion gives)."""
    shape = _batched_shape(draw, 2)
    weights, upstream = _weights_and_upstream(draw, shape)
    expect_reference(submission, tol, FUNCTION, weights.astype(np.float32), upstream,
                     what=msg("softmax_backward of float32 weights and a float64 gradient"))


@question(weight=2)
def test_agrees_with_centred_differences(submission, tol, draw):
    """dS equals the numerical gradient of L(S) = sum(softmax(S) * G)."""
    shape = _batched_shape(draw, 3)
    scores, G = draw.normal(shape), draw.normal(shape)
    actual = expect_reference(submission, tol, FUNCTION, softmax(scores), G,
                              what=msg("softmax_backward of a {shape} batch", shape=str(shape)))  # shape and contract first
    if actual is None:
        return
    numerical = numerical_gradient(lambda s: np.sum(softmax(s) * G), scores)
    wrong = first_mismatch(numerical, np.asarray(actual).astype(np.float64), NUMERICAL_TOLERANCE)
    expect(not wrong, msg("softmax_backward differs from the centred-difference gradient of sum(softmax(S) * G) {where}",
                          where=wrong))


@question
def test_size_one_axes_are_kept(submission, tol, draw):
    """A (B, 1, n) batch keeps its size-1 axis (not the first: summing over a size-1 axis 0 would look like another bug)."""
    shape = (draw.batch(1)[0], 1, draw.size())
    expect_reference(submission, tol, FUNCTION, *_weights_and_upstream(draw, shape), what=msg("softmax_backward of a {shape} batch", shape=str(shape)))


@question
def test_integer_upstream_gradient(submission, tol, draw):
    """An integer upstream gradient (with float64 weights) is computed in float64."""
    shape = _batched_shape(draw, 2)
    weights, upstream = _weights_and_upstream(draw, shape)
    upstream = np.round(3 * upstream).astype(np.int64)
    expect_reference(submission, tol, FUNCTION, weights, upstream, what=msg("softmax_backward of an integer upstream gradient"))


@question
def test_nested_lists_are_array_like(submission, tol, draw):
    """A and dA are array_like: nested lists give what the arrays they stand for give."""
    shape = _batched_shape(draw, 2)
    weights, upstream = _weights_and_upstream(draw, shape)
    expect_reference(submission, tol, FUNCTION, weights.tolist(), upstream.tolist(),
                     what=msg("softmax_backward of nested lists"))
