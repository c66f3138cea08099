"""Hidden tests of the alignment scores (hw2, questions 1-4). Inputs are drawn afresh on every run.

Sizes d_s, d_h, d_a, T and the batch all differ, so swapped or transposed weights cannot
go unnoticed; a square case (d_s = d_h = d_a) checks the bugs that shapes alone would not
reveal.
"""

import numpy as np
import pytest

from autograder.grade.expect import expect_reference
from autograder.i18n import msg
from autograder.judge.claims import draws

additive = pytest.mark.question("additive_score")
dot = pytest.mark.question("dot_score")
general = pytest.mark.question("general_score")
concat = pytest.mark.question("concat_score")


def _sizes(draw, count: int) -> tuple[int, ...]:
    return draw.sizes(count)


def _states(draw, d_s: int, d_h: int, T: int, batch_ndim: int = 1, dtype=np.float64):
    """s (..., d_s) and H (..., T, d_h)."""
    batch = draw.batch(batch_ndim, avoid=(d_s, d_h, T)) if batch_ndim else ()
    return draw.normal((*batch, d_s), dtype=dtype), draw.normal((*batch, T, d_h), dtype=dtype)


@additive(weight=2)
def test_additive_batched(submission, tol, draw):
    """Bahdanau scores for batched states with d_s, d_h, d_a and T all different."""
    d_s, d_h, d_a, T = _sizes(draw, 4)
    s, H = _states(draw, d_s, d_h, T)
    W_a, U_a, v_a = draw.normal((d_a, d_s)), draw.normal((d_a, d_h)), draw.normal((d_a,))
    expect_reference(submission, tol, "additive_score", s, H, W_a, U_a, v_a, what=msg("additive_score on batched states"))


@additive
@draws(same=(("d_s", "d_h", "d_a"),))
def test_additive_square(submission, tol, draw):
    """Bahdanau scores when d_s = d_h = d_a (so swapped weights still have valid shapes)."""
    d, T = _sizes(draw, 2)
    s, H = _states(draw, d, d, T, batch_ndim=0)
    W_a, U_a, v_a = draw.normal((d, d)), draw.normal((d, d)), draw.normal((d,))
    expect_reference(submission, tol, "additive_score", s, H, W_a, U_a, v_a, what=msg("additive_score with square weights"))


@additive
def test_additive_float32(submission, tol, draw):
    """float32 inputs give float32 scores."""
    d_s, d_h, d_a, T = _sizes(draw, 4)
    s, H = _states(draw, d_s, d_h, T, dtype=np.float32)
    W_a, U_a, v_a = (draw.normal(shape, dtype=np.float32) for shape in ((d_a, d_s), (d_a, d_h), (d_a,)))
    expect_reference(submission, tol, "additive_score", s, H, W_a, U_a, v_a, what=msg("additive_score on float32"))


@dot(weight=2)
def test_dot_batched(submission, tol, draw):
    """Dot scores for batched states."""
    d, T = _sizes(draw, 2)
    expect_reference(submission, tol, "dot_score", *_states(draw, d, d, T), what=msg("dot_score on batched states"))


@dot
def test_dot_unbatched(submission, tol, draw):
    """Dot scores for one decoder state."""
    d, T = _sizes(draw, 2)
    expect_reference(submission, tol, "dot_score", *_states(draw, d, d, T, batch_ndim=0), what=msg("dot_score on one state"))


@general(weight=2)
def test_general_rectangular(submission, tol, draw):
    """General scores with a (d_s, d_h) matrix, d_s != d_h."""
    d_s, d_h, T = _sizes(draw, 3)
    s, H = _states(draw, d_s, d_h, T)
    expect_reference(submission, tol, "general_score", s, H, draw.normal((d_s, d_h)), what=msg("general_score with d_s != d_h"))


@dot
def test_dot_integers(submission, tol, draw):
    """Integer states give float64 scores, as do an integer s beside a float H, and float16 states.

    H is not cast to s's type; float16 is computed in float64 like every input but float32."""
    d, T = _sizes(draw, 2)
    s, H = _states(draw, d, d, T)
    s_int, H_int = (np.round(3 * a).astype(np.int64) for a in (s, H))
    expect_reference(submission, tol, "dot_score", s_int, H_int, what=msg("dot_score on integer states"))
    expect_reference(submission, tol, "dot_score", s_int, H,
                     what=msg("{function} of an integer s beside a float H", function="dot_score"))
    expect_reference(submission, tol, "dot_score", s.astype(np.float16), H.astype(np.float16),
                     what=msg("{function} of float16 inputs (computed in float64, like every input but float32)",
                              function="dot_score"))


@dot
def test_dot_float32(submission, tol, draw):
    """float32 states give float32 scores."""
    d, T = _sizes(draw, 2)
    expect_reference(submission, tol, "dot_score", *_states(draw, d, d, T, dtype=np.float32), what=msg("dot_score on float32"))


@general
def test_general_float32(submission, tol, draw):
    """float32 inputs give float32 scores."""
    d_s, d_h, T = _sizes(draw, 3)
    s, H = _states(draw, d_s, d_h, T, dtype=np.float32)
    expect_reference(submission, tol, "general_score", s, H, draw.normal((d_s, d_h), dtype=np.float32),
                     what=msg("general_score on float32"))


@general
@draws(same=(("d_s", "d_h"),))
def test_general_square(submission, tol, draw):
    """General scores with a square, non-symmetric W_a."""
    d, T = _sizes(draw, 2)
    s, H = _states(draw, d, d, T)
    expect_reference(submission, tol, "general_score", s, H, draw.normal((d, d)), what=msg("general_score with square W_a"))


@concat(weight=2)
def test_concat_batched(submission, tol, draw):
    """Concat scores with W_a of shape (d_a, d_s + d_h)."""
    d_s, d_h, d_a, T = _sizes(draw, 4)
    s, H = _states(draw, d_s, d_h, T)
    W_a, v_a = draw.normal((d_a, d_s + d_h)), draw.normal((d_a,))
    expect_reference(submission, tol, "concat_score", s, H, W_a, v_a, what=msg("concat_score on batched states"))


@concat
@draws(same=(("d_s", "d_h"),))
def test_concat_equal_sizes(submission, tol, draw):
    """Concat scores when d_s = d_h (so the concatenation order matters only in values)."""
    d, d_a, T = _sizes(draw, 3)
    s, H = _states(draw, d, d, T, batch_ndim=0)
    W_a, v_a = draw.normal((d_a, 2 * d)), draw.normal((d_a,))
    expect_reference(submission, tol, "concat_score", s, H, W_a, v_a, what=msg("concat_score with d_s = d_h"))


@concat
def test_concat_float32(submission, tol, draw):
    """float32 inputs give float32 scores."""
    d_s, d_h, d_a, T = _sizes(draw, 4)
    s, H = _states(draw, d_s, d_h, T, dtype=np.float32)
    W_a, v_a = draw.normal((d_a, d_s + d_h), dtype=np.float32), draw.normal((d_a,), dtype=np.float32)
    expect_reference(submission, tol, "concat_score", s, H, W_a, v_a, what=msg("concat_score on float32"))


def _weights(draw, function: str, d_s: int, d_h: int, dtype=np.float64) -> tuple:
    """The arguments ``function`` takes after ``s`` and ``H``, for states of sizes d_s and d_h (d_a drawn)."""
    if function == "dot_score":
        return ()
    if function == "general_score":
        return (draw.normal((d_s, d_h), dtype=dtype),)
    d_a = draw.size()
    if function == "additive_score":
        return tuple(draw.normal(shape, dtype=dtype) for shape in ((d_a, d_s), (d_a, d_h), (d_a,)))
    return draw.normal((d_a, d_s + d_h), dtype=dtype), draw.normal((d_a,), dtype=dtype)


def _state_sizes(draw, function: str) -> tuple[int, int, int]:
    """(d_s, d_h, T), all different except d_s = d_h for the dot score."""
    if function == "dot_score":
        d, T = _sizes(draw, 2)
        return d, d, T
    return _sizes(draw, 3)


def _batch_axes_in_one_argument(submission, tol, draw, function: str) -> None:
    """Batched s against unbatched H, then unbatched s against batched H: the batch axes broadcast either way."""
    d_s, d_h, T = _state_sizes(draw, function)
    weights = _weights(draw, function, d_s, d_h)
    s, H = _states(draw, d_s, d_h, T)  # s (B, d_s), H (B, T, d_h)
    for s_part, H_part in ((s, H[0]), (s[0], H)):
        expect_reference(submission, tol, function, s_part, H_part, *weights,
                         what=msg("{function} of s {s} against H {H}", function=function, s=str(s_part.shape), H=str(H_part.shape)))


def _two_batch_axes(submission, tol, draw, function: str) -> None:
    """s (B1, B2, d_s) against H (B1, 1, T, d_h): two batch axes, the second broadcast from H's size 1."""
    d_s, d_h, T = _state_sizes(draw, function)
    B1, B2 = draw.batch(2, avoid=(d_s, d_h, T))
    s, H = draw.normal((B1, B2, d_s)), draw.normal((B1, 1, T, d_h))
    expect_reference(submission, tol, function, s, H, *_weights(draw, function, d_s, d_h),
                     what=msg("{function} with two batch axes, one broadcast", function=function))


def _batch_of_one(submission, tol, draw, function: str) -> None:
    """s (1, d_s) and H (1, T, d_h) give scores (1, T): the size-1 batch axis stays."""
    d_s, d_h, T = _state_sizes(draw, function)
    weights = _weights(draw, function, d_s, d_h)
    s, H = _states(draw, d_s, d_h, T, batch_ndim=0)
    expect_reference(submission, tol, function, s[None], H[None], *weights, what=msg("{function} on a batch of one", function=function))


def _integers(submission, tol, draw, function: str) -> None:
    """Integer states and weights give float64 scores; so do integer states beside float weights, an integer s
    beside a float H (nothing is cast to an integer input's type), and float16 inputs."""
    d_s, d_h, T = _state_sizes(draw, function)
    states, weights = _states(draw, d_s, d_h, T), _weights(draw, function, d_s, d_h)
    integer_states = tuple(np.round(2 * a).astype(np.int64) for a in states)
    expect_reference(submission, tol, function, *integer_states, *(np.round(2 * a).astype(np.int64) for a in weights),
                     what=msg("{function} on integer inputs", function=function))
    if weights:
        expect_reference(submission, tol, function, *integer_states, *weights,
                         what=msg("{function} of integer states with float weights", function=function))
    expect_reference(submission, tol, function, integer_states[0], states[1], *weights,
                     what=msg("{function} of an integer s beside a float H", function=function))
    expect_reference(submission, tol, function, *(a.astype(np.float16) for a in (*states, *weights)),
                     what=msg("{function} of float16 inputs (computed in float64, like every input but float32)",
                              function=function))


def _nested_lists(submission, tol, draw, function: str) -> None:
    """Every argument array_like: the states and weights as nested lists give the scores of the arrays."""
    d_s, d_h, T = _state_sizes(draw, function)
    arguments = (*_states(draw, d_s, d_h, T), *_weights(draw, function, d_s, d_h))
    expect_reference(submission, tol, function, *(a.tolist() for a in arguments),
                     what=msg("{function} of nested lists", function=function))


def _saturated(submission, tol, draw, function: str) -> None:
    """States in the hundreds drive tanh into saturation: the scores are finite sums of +-v_a."""
    d_s, d_h, T = _state_sizes(draw, function)
    s, H = _states(draw, d_s, d_h, T)
    expect_reference(submission, tol, function, 400 * s, 400 * H, *_weights(draw, function, d_s, d_h),
                     what=msg("{function} of states in the hundreds (tanh saturates)", function=function))


@additive
def test_additive_batch_axes_in_one_argument(submission, tol, draw):
    """Batched s against unbatched H, and the other way round."""
    _batch_axes_in_one_argument(submission, tol, draw, "additive_score")


@additive
def test_additive_batch_of_one(submission, tol, draw):
    """A batch of one keeps its axis."""
    _batch_of_one(submission, tol, draw, "additive_score")


@additive
def test_additive_integers(submission, tol, draw):
    """Integer inputs give float64 scores."""
    _integers(submission, tol, draw, "additive_score")


@additive
def test_additive_saturated(submission, tol, draw):
    """Large states saturate tanh: the scores stay finite."""
    _saturated(submission, tol, draw, "additive_score")


@concat
def test_concat_saturated(submission, tol, draw):
    """Large states saturate tanh: the scores stay finite."""
    _saturated(submission, tol, draw, "concat_score")


@dot
def test_dot_batch_axes_in_one_argument(submission, tol, draw):
    """Batched s against unbatched H, and the other way round."""
    _batch_axes_in_one_argument(submission, tol, draw, "dot_score")


@dot
def test_dot_batch_of_one(submission, tol, draw):
    """A batch of one keeps its axis."""
    _batch_of_one(submission, tol, draw, "dot_score")


@general
def test_general_batch_axes_in_one_argument(submission, tol, draw):
    """Batched s against unbatched H, and the other way round."""
    _batch_axes_in_one_argument(submission, tol, draw, "general_score")


@general
def test_general_batch_of_one(submission, tol, draw):
    """A batch of one keeps its axis."""
    _batch_of_one(submission, tol, draw, "general_score")


@general
def test_general_integers(submission, tol, draw):
    """Integer inputs give float64 scores."""
    _integers(submission, tol, draw, "general_score")


@concat
def test_concat_batch_axes_in_one_argument(submission, tol, draw):
    """Batched s against unbatched H, and the other way round."""
    _batch_axes_in_one_argument(submission, tol, draw, "concat_score")


@concat
def test_concat_batch_of_one(submission, tol, draw):
    """A batch of one keeps its axis."""
    _batch_of_one(submission, tol, draw, "concat_score")


@concat
def test_concat_integers(submission, tol, draw):
    """Integer inputs give float64 scores."""
    _integers(submission, tol, draw, "concat_score")


@additive
def test_additive_two_batch_axes(submission, tol, draw):
    """Two batch axes, the second broadcast from H's size 1."""
    _two_batch_axes(submission, tol, draw, "additive_score")


@dot
def test_dot_two_batch_axes(submission, tol, draw):
    """Two batch axes, the second broadcast from H's size 1."""
    _two_batch_axes(submission, tol, draw, "dot_score")


@general
def test_general_two_batch_axes(submission, tol, draw):
    """Two batch axes, the second broadcast from H's size 1."""
    _two_batch_axes(submission, tol, draw, "general_score")


@concat
def test_concat_two_batch_axes(submission, tol, draw):
    """Two batch axes, the second broadcast from H's size 1."""
    _two_batch_axes(submission, tol, draw, "concat_score")


@additive
def test_additive_nested_lists(submission, tol, draw):
    """s, H and the weights are array_like: nested lists give the scores of the arrays."""
    _nested_lists(submission, tol, draw, "additive_score")


@dot
def test_dot_nested_lists(submission, tol, draw):
    """s and H are array_like: nested lists give the scores of the arrays."""
    _nested_lists(submission, tol, draw, "dot_score")


@general
def test_general_nested_lists(submission, tol, draw):
    """s, H and W_a are array_like: nested lists give the scores of the arrays."""
    _nested_lists(submission, tol, draw, "general_score")


@concat
def test_concat_nested_lists(submission, tol, draw):
    """s, H, W_a and v_a are array_like: nested lists give the scores of the arrays."""
    _nested_lists(submission, tol, draw, "concat_score")
