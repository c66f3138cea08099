"""Hidden tests of scaled_dot_product_attention_backward (hw4, question 2). Inputs are drawn afresh on every run.

Sizes d_k, d_v, L_q, L_k and the batch all differ: a missing transpose then fails to
broadcast or gives a different answer, and scaling by the wrong dimension shows. A square
self-attention case catches the transposes that only a shape error would otherwise reveal.
The function calls the student's own softmax_backward in the master: a result that follows
from a wrong softmax_backward keeps its points (error carried forward).
"""

import math

import numpy as np
import pytest

from attn_reference import numerical_gradient, scaled_dot_product_attention, softmax
from autograder.judge.compare import Tolerance
from autograder.grade.carry import holds_or_carried
from autograder.grade.expect import expect, expect_reference
from autograder.judge.messages import first_mismatch
from autograder.i18n import msg
from autograder.judge.claims import draws
from autograder.judge.draw import MASKABLE_SIZES, SIZES

question = pytest.mark.question("scaled_dot_product_attention_backward")
FUNCTION = "scaled_dot_product_attention_backward"
#: Centred differences with eps = 1e-5 on values of order 1 are good to about 1e-9.
NUMERICAL_TOLERANCE = Tolerance(rtol=1e-5, atol=1e-7)
#: The fill many PyTorch implementations give masked scores instead of -inf.
FINITE_FILL = -1e9
GRADIENT_NAMES = ("dQ", "dK", "dV")


def _sizes(draw, square: bool = False, masked: bool = False) -> tuple[int, int, int, int]:
    """(L_q, L_k, d_k, d_v), all different unless ``square`` (then L_q == L_k); L_k > 2 when ``masked``."""
    L_k = draw.size(MASKABLE_SIZES if masked else SIZES)
    L_q, d_k, d_v = draw.sizes(3)
    return (L_k, L_k, d_k, d_v) if square else (L_q, L_k, d_k, d_v)


def _problem(draw, q_batch=(), kv_batch=(), square=False, dtype=np.float64, mask=None, sizes=None):
    """Q, K, V, the forward weights A and an upstream gradient dZ."""
    L_q, L_k, d_k, d_v = sizes or _sizes(draw, square)
    Q = draw.normal((*q_batch, L_q, d_k), dtype=dtype)  # (..., L_q, d_k)
    K = draw.normal((*kv_batch, L_k, d_k), dtype=dtype)  # (..., L_k, d_k)
    V = draw.normal((*kv_batch, L_k, d_v), dtype=dtype)  # (..., L_k, d_v)
    Z, A = scaled_dot_product_attention(Q, K, V, mask)
    return Q, K, V, A, draw.normal(Z.shape, dtype=dtype)  # dZ: (..., L_q, d_v)


def _sized(draw, ndim: int = 1, square: bool = False, masked: bool = False) -> tuple[tuple[int, ...], tuple[int, int, int, int]]:
    """A batch shape of ``ndim`` axes and (L_q, L_k, d_k, d_v), every size different from the others."""
    sizes = _sizes(draw, square, masked)
    return draw.batch(ndim), sizes


@question
def test_unbatched(submission, tol, draw):
    """2-D inputs with L_q != L_k and d_k != d_v."""
    expect_reference(submission, tol, FUNCTION, *_problem(draw), what=msg("attention backward on 2-D inputs"))


@question(weight=2)
def test_batched(submission, tol, draw):
    """Inputs with one batch dimension."""
    batch, sizes = _sized(draw)
    expect_reference(submission, tol, FUNCTION, *_problem(draw, batch, batch, sizes=sizes), what=msg("attention backward on batched inputs"))


@question
def test_two_batch_dimensions(submission, tol, draw):
    """Inputs with two batch dimensions."""
    batch, sizes = _sized(draw, 2)
    expect_reference(submission, tol, FUNCTION, *_problem(draw, batch, batch, sizes=sizes), what=msg("attention backward with two batch dimensions"))


@question(weight=2)
@draws(same=(("L_q", "L_k"),))
def test_self_attention_square_scores(submission, tol, draw):
    """L_q = L_k: every product fits, so only the values tell a missing transpose."""
    batch, sizes = _sized(draw, square=True)
    expect_reference(submission, tol, FUNCTION, *_problem(draw, batch, batch, sizes=sizes), what=msg("attention backward with L_q = L_k"))


@question
def test_broadcast_batch_is_summed_back(submission, tol, draw):
    """Q (B1, B2, L_q, d_k) against K, V (B2, L_k, d): dK and dV are summed over the broadcast axis."""
    (b1, b2), sizes = _sized(draw, 2)
    expect_reference(submission, tol, FUNCTION, *_problem(draw, (b1, b2), (b2,), sizes=sizes),
                     what=msg("attention backward with broadcast batch dimensions"))


@question
def test_float32_stays_float32(submission, tol, draw):
    """float32 inputs give float32 dQ, dK and dV."""
    batch, sizes = _sized(draw)
    expect_reference(submission, tol, FUNCTION, *_problem(draw, batch, batch, dtype=np.float32, sizes=sizes),
                     what=msg("attention backward on float32 inputs"))


@question(weight=2)
@draws(same=(("L_q", "L_k"),))
def test_causal_mask(submission, tol, draw):
    """A causal (L, L) boolean mask over batched self-attention."""
    batch, sizes = _sized(draw, square=True)
    mask = np.tril(np.ones((sizes[0], sizes[0]), dtype=bool))
    expect_reference(submission, tol, FUNCTION, *_problem(draw, batch, batch, mask=mask, sizes=sizes), mask,
                     what=msg("attention backward with a causal mask"))


@question
@draws(blocks=True)
def test_integer_mask(submission, tol, draw):
    """A 0/1 integer mask means the same as a boolean one."""
    batch, sizes = _sized(draw, masked=True)
    mask = draw.mask(sizes[:2], dtype=np.int64)
    expect_reference(submission, tol, FUNCTION, *_problem(draw, batch, batch, mask=mask, sizes=sizes), mask,
                     what=msg("attention backward with a 0/1 integer mask"))


@question(weight=2)
@draws(blocks=True, empty_rows=True)  # the last query of the last sequence has no allowed key
def test_padding_queries_get_exactly_zero_gradient(submission, tol, draw):
    """Queries with no allowed key get dQ = 0, even when the forward pass filled masked scores with -1e9."""
    batch, sizes = _sized(draw, masked=True)
    Q, K, V, _, dZ = _problem(draw, batch, batch, sizes=sizes)
    mask = draw.mask((*batch, Q.shape[-2], K.shape[-2]))  # (B, L_q, L_k)
    mask[-1, -1, :] = False  # a padding query: no allowed key at all
    scores = np.where(mask, Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1]), FINITE_FILL)
    A = softmax(scores)  # (B, L_q, L_k): the padding query's row is uniform, not 0
    actual = expect_reference(submission, tol, FUNCTION, Q, K, V, A, dZ, mask, what=msg("attention backward with padding"))
    if actual is not None and not submission.carried:
        exact = holds_or_carried(submission, tol, FUNCTION, (Q, K, V, A, dZ, mask), {}, actual,
                                 lambda result: np.all(np.asarray(result[0])[-1, -1] == 0))
        expect(exact, msg("attention backward: a query with no allowed key should get a gradient of exactly 0"))


@question(weight=2)
@draws(same=(("L_q", "L_k"),))
def test_agrees_with_centred_differences(submission, tol, draw):
    """dQ, dK, dV equal the numerical gradients of L = sum(Z * G) under a causal mask."""
    sizes = _sizes(draw, square=True)
    mask = np.tril(np.ones((sizes[0], sizes[0]), dtype=bool))
    Q, K, V, A, G = _problem(draw, mask=mask, sizes=sizes)
    actual = expect_reference(submission, tol, FUNCTION, Q, K, V, A, G, mask, what=msg("attention backward under a causal mask"))
    if actual is None or submission.carried:
        return  # the result follows from the student's own softmax_backward: judged there

    def loss(q, k, v):
        return np.sum(scaled_dot_product_attention(q, k, v, mask)[0] * G)

    numerical = (
        numerical_gradient(lambda x: loss(x, K, V), Q),
        numerical_gradient(lambda x: loss(Q, x, V), K),
        numerical_gradient(lambda x: loss(Q, K, x), V),
    )
    for name, expected, got in zip(GRADIENT_NAMES, numerical, actual):
        wrong = first_mismatch(expected, np.asarray(got).astype(np.float64), NUMERICAL_TOLERANCE)
        expect(not wrong, msg("{name} differs from the centred-difference gradient of sum(Z * G) {where}", name=name, where=wrong))


@question
def test_size_one_batch_axis_is_summed_back(submission, tol, draw):
    """Q (B, L_q, d_k) against K, V (1, L_k, d): the size-1 axis is stretched, so dK and dV are summed back to (1, L_k, d)."""
    batch, sizes = _sized(draw)
    expect_reference(submission, tol, FUNCTION, *_problem(draw, batch, (1,), sizes=sizes),
                     what=msg("attention backward with a size-1 batch axis"))


@question
def test_a_missing_and_a_size_one_batch_axis_are_both_summed_back(submission, tol, draw):
    """Q (B2, B1, L_q, d_k) against K, V (1, L_k, d): one batch axis missing and one of size 1, both summed back."""
    batch, sizes = _sized(draw, ndim=2)
    expect_reference(submission, tol, FUNCTION, *_problem(draw, batch, (1,), sizes=sizes),
                     what=msg("attention backward with a missing and a size-1 batch axis"))


@question
def test_a_size_one_batch_axis_after_a_larger_one_is_summed_back(submission, tol, draw):
    """Q (B1, 1, L_q, d_k) against K, V (B1, B2, L_k, d): dQ is summed over the inner stretched axis only, keeping it."""
    (B1, B2), sizes = _sized(draw, ndim=2)
    expect_reference(submission, tol, FUNCTION, *_problem(draw, (B1, 1), (B1, B2), sizes=sizes),
                     what=msg("attention backward with a size-1 batch axis after a larger one"))


@question
def test_batched_queries_against_unbatched_keys(submission, tol, draw):
    """Q (B, L_q, d_k) against K, V (L_k, d): dK and dV are summed over the batch."""
    batch, sizes = _sized(draw)
    expect_reference(submission, tol, FUNCTION, *_problem(draw, batch, (), sizes=sizes),
                     what=msg("attention backward with batched queries and unbatched keys"))


@question
@draws(blocks=True)
def test_the_mask_decides_even_where_A_has_weight(submission, tol, draw):
    """A with weight where the mask blocks (a forward pass without it) is zeroed there first: the mask decides.

    Every row of the mask allows some keys and blocks others."""
    batch, sizes = _sized(draw, masked=True)
    mask = draw.mask((*batch, *sizes[:2]))  # (B, L_q, L_k): every row blocks a key and allows one
    expect_reference(submission, tol, FUNCTION, *_problem(draw, batch, batch, sizes=sizes), mask,
                     what=msg("attention backward with a mask over weights that are not zero where it blocks"))


@question
@draws(blocks=True, empty_rows=True)  # one query has no allowed key
def test_weights_with_a_fully_masked_row(submission, tol, draw):
    """A from the forward pass with a query that has no allowed key (its row of A is NaN): dQ there is 0, the rest is finite."""
    batch, sizes = _sized(draw, masked=True)
    mask = draw.mask(sizes[:2])  # (L_q, L_k)
    mask[int(draw.rng.integers(sizes[0]))] = False  # a query with no allowed key
    expect_reference(submission, tol, FUNCTION, *_problem(draw, batch, batch, mask=mask, sizes=sizes), mask,
                     what=msg("attention backward with a fully masked query"))


@question
def test_unbatched_queries_against_batched_keys(submission, tol, draw):
    """Q (L_q, d_k) against K, V (B, L_k, d): dQ is summed over the batch."""
    batch, sizes = _sized(draw)
    expect_reference(submission, tol, FUNCTION, *_problem(draw, (), batch, sizes=sizes),
                     what=msg("attention backward with unbatched queries and batched keys"))


@question
def test_unbatched_weights_against_batched_values(submission, tol, draw):
    """Q, K and A unbatched, V and dZ (B, ...): dQ, dK are summed over the batch, A is not stretched."""
    batch, (L_q, L_k, d_k, d_v) = _sized(draw)
    Q, K = draw.normal((L_q, d_k)), draw.normal((L_k, d_k))
    V = draw.normal((*batch, L_k, d_v))
    _, A = scaled_dot_product_attention(Q, K, V[0])  # (L_q, L_k): the weights do not depend on V
    expect_reference(submission, tol, FUNCTION, Q, K, V, A, draw.normal((*batch, L_q, d_v)),
                     what=msg("attention backward with unbatched weights and batched values"))


@question
def test_integer_inputs(submission, tol, draw):
    """Integer Q, K, V and dZ (with float weights A) are computed in float64."""
    batch, sizes = _sized(draw)
    Q, K, V, A, dZ = _problem(draw, batch, batch, sizes=sizes)
    Q, K, V, dZ = (np.round(2 * a).astype(np.int64) for a in (Q, K, V, dZ))
    _, A = scaled_dot_product_attention(Q, K, V)  # the weights of the integer inputs
    expect_reference(submission, tol, FUNCTION, Q, K, V, A, dZ, what=msg("attention backward on integer inputs"))
