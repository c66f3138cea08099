"""Hidden tests of scaled_dot_product_attention (hw1, question 3). Inputs are drawn afresh on every run.

In every case the batch sizes, L_q, L_k, d_k and d_v all differ, so scaling by the wrong
dimension, or transposing the wrong axes, cannot give the right answer by coincidence; the
self-attention case declares the sizes it makes equal (``@draws(same=...)``, checked by
autograder.judge.claims on 1,000 seeds).
"""

import numpy as np
import pytest

from autograder.grade.expect import expect_reference
from autograder.i18n import msg
from autograder.judge.claims import draws
from autograder.judge.draw import KEPT_PER_ROW, MASKABLE_SIZES, SIZES

question = pytest.mark.question("scaled_dot_product_attention")
FUNCTION = "scaled_dot_product_attention"
#: Spread of a vector shared by every key: it adds a per-query offset in the thousands to the scores.
LARGE_OFFSET = 3000.0
#: How far above the others a padded key's scaled score is: an additive -1e4 "mask" leaves it on top.
MASKED_SCORE = 2e4


def _qkv(draw, batch_ndim: int | None = 1, dtype=np.float64, keys: tuple[int, ...] = SIZES):
    """Q (..., L_q, d_k), K (..., L_k, d_k), V (..., L_k, d_v) with all sizes different, L_k from ``keys``."""
    L_k = draw.size(keys)  # MASKABLE_SIZES for a mask that keeps two keys per row and blocks one
    L_q, d_k, d_v = draw.sizes(3)
    batch = draw.batch(batch_ndim) if batch_ndim else ()
    Q = draw.normal((*batch, L_q, d_k), 1.0, dtype)
    K = draw.normal((*batch, L_k, d_k), 1.0, dtype)
    V = draw.normal((*batch, L_k, d_v), 1.0, dtype)
    return Q, K, V


@question
def test_worked_example(submission, tol):
    """The 3-token example: weights 0.4519 / 0.2741, Z = A V."""
    X = np.eye(3, 4)
    expect_reference(submission, tol, FUNCTION, X, X, X, what=msg("attention on the worked example"), worked_example=True)


@question
def test_unbatched_d_v_unlike_d_k(submission, tol, draw):
    """2-D inputs with L_q, L_k, d_k and d_v all different."""
    expect_reference(submission, tol, FUNCTION, *_qkv(draw, batch_ndim=0), what=msg("attention on 2-D inputs"))


@question
@draws(blocks=True)
def test_float32_with_an_integer_mask_stays_float32(submission, tol, draw):
    """float32 inputs with a 0/1 integer mask give float32 Z and A: the mask's type sets no dtype."""
    Q, K, V = _qkv(draw, dtype=np.float32, keys=MASKABLE_SIZES)
    mask = draw.mask((Q.shape[-2], K.shape[-2]), dtype=np.int64)
    expect_reference(submission, tol, FUNCTION, Q, K, V, mask, what=msg("attention on float32 inputs with an integer mask"))


@question(weight=2)
def test_batched(submission, tol, draw):
    """Inputs with one batch dimension."""
    expect_reference(submission, tol, FUNCTION, *_qkv(draw), what=msg("attention on batched inputs"))


@question
def test_two_batch_dimensions(submission, tol, draw):
    """Inputs with two batch dimensions."""
    expect_reference(submission, tol, FUNCTION, *_qkv(draw, batch_ndim=2), what=msg("attention with two batch dimensions"))


@question
@draws(blocks=True)
def test_float32_stays_float32(submission, tol, draw):
    """float32 inputs (and a boolean mask) give float32 Z and A."""
    Q, K, V = _qkv(draw, dtype=np.float32, keys=MASKABLE_SIZES)
    mask = draw.mask((Q.shape[-2], K.shape[-2]))
    expect_reference(submission, tol, FUNCTION, Q, K, V, mask, what=msg("attention on float32 inputs"))


@question(weight=2)
@draws(same=(("L_q", "L_k"), ("d_k", "d_v")))  # self-attention: X is Q, K and V
def test_causal_mask(submission, tol, draw):
    """A causal (L, L) boolean mask over batched self-attention."""
    L, d_k = draw.sizes(2)
    X = draw.normal((*draw.batch(1, avoid=(L, d_k)), L, d_k))  # (B, L, d_k)
    mask = np.tril(np.ones((L, L), dtype=bool))
    expect_reference(submission, tol, FUNCTION, X, X, X, mask, what=msg("attention with a causal mask"))


@question
@draws(blocks=True)
def test_padding_mask_broadcast(submission, tol, draw):
    """A (B, 1, L_k) padding mask broadcast over the queries."""
    Q, K, V = _qkv(draw, keys=MASKABLE_SIZES)
    mask = draw.padding_mask(Q.shape[:-2], K.shape[-2])[..., None, :]  # (B, 1, L_k)
    expect_reference(submission, tol, FUNCTION, Q, K, V, mask, what=msg("attention with a padding mask"))


@question
@draws(blocks=True)
def test_batched_mask(submission, tol, draw):
    """A different random mask for every batch element, (B, L_q, L_k)."""
    Q, K, V = _qkv(draw, keys=MASKABLE_SIZES)
    mask = draw.mask((*Q.shape[:-1], K.shape[-2]))
    expect_reference(submission, tol, FUNCTION, Q, K, V, mask, what=msg("attention with a batched mask"))


@question
@draws(blocks=True)
def test_one_dimensional_padding_mask(submission, tol, draw):
    """A (L_k,) mask shared by every query and every batch element."""
    Q, K, V = _qkv(draw, keys=MASKABLE_SIZES)
    mask = draw.padding_mask((), K.shape[-2])  # (L_k,)
    expect_reference(submission, tol, FUNCTION, Q, K, V, mask, what=msg("attention with a 1-D padding mask"))


@question
@draws(blocks=True)
def test_integer_mask(submission, tol, draw):
    """A 0/1 integer (L_q, L_k) mask means the same as a boolean one."""
    Q, K, V = _qkv(draw, keys=MASKABLE_SIZES)
    mask = draw.mask(Q.shape[-2:-1] + K.shape[-2:-1], dtype=np.int64)
    expect_reference(submission, tol, FUNCTION, Q, K, V, mask, what=msg("attention with a 0/1 integer mask"))


@question
@draws(blocks=True)
def test_a_fully_padded_key_gets_no_weight(submission, tol, draw):
    """A key masked for every query gets weight exactly 0 everywhere."""
    Q, K, V = _qkv(draw, keys=tuple(n for n in MASKABLE_SIZES if n > KEPT_PER_ROW + 1))
    L_k = K.shape[-2]
    padded = int(draw.rng.integers(L_k))
    mask = np.insert(draw.mask((*Q.shape[:-1], L_k - 1)), padded, False, axis=-1)  # (B, L_q, L_k): key ``padded`` off
    expect_reference(submission, tol, FUNCTION, Q, K, V, mask, what=msg("attention with a fully padded key"))


@question
@draws(blocks=True, empty_rows=True)  # one query of each sequence has no allowed key
def test_a_query_with_no_allowed_key_is_undefined(submission, tol, draw):
    """A mask row that allows no key leaves that query undefined (NaN, any value accepted); the other rows are unchanged."""
    Q, K, V = _qkv(draw, keys=MASKABLE_SIZES)
    mask = draw.mask((*Q.shape[:-1], K.shape[-2]))  # (B, L_q, L_k)
    mask[..., int(draw.rng.integers(Q.shape[-2])), :] = False  # that query may attend to no key
    expect_reference(submission, tol, FUNCTION, Q, K, V, mask, what=msg("attention with a query that may attend to no key"))


def _scores_moved_by_padding(draw, real: float, padded: float) -> tuple:
    """Q, K, V (B, ...) and a (B, 1, L_k) padding mask, with an extra coordinate that adds ``real`` to the scaled
    scores of the real keys and ``padded`` to those of the padded ones."""
    L_q, L_k, d_k, d_v = draw.sizes(4, tuple(n for n in SIZES if n > 2))  # d_k counts the extra coordinate below
    batch = draw.batch(1)
    Q, K, V = draw.normal((*batch, L_q, d_k - 1)), draw.normal((*batch, L_k, d_k - 1)), draw.normal((*batch, L_k, d_v))
    padding = draw.padding_mask(batch, L_k)  # (B, L_k): True for real keys
    moved = np.where(padding, real, padded)[..., None] * np.sqrt(d_k)  # (B, L_k, 1)
    Q = np.concatenate([Q, np.ones((*Q.shape[:-1], 1))], axis=-1)  # (B, L_q, d_k): a coordinate of 1 ...
    K = np.concatenate([K, moved], axis=-1)  # (B, L_k, d_k): ... meets the move
    return Q, K, V, padding[..., None, :]


@question
@draws(blocks=True)
def test_padded_keys_may_hold_huge_scores(submission, tol, draw):
    """Padded keys whose scores are far above the others get weight 0 and change nothing."""
    expect_reference(submission, tol, FUNCTION, *_scores_moved_by_padding(draw, 0.0, MASKED_SCORE),
                     what=msg("attention with huge scores on padded keys"))


@question
@draws(blocks=True)
def test_real_keys_far_below_zero_keep_all_the_weight(submission, tol, draw):
    """Real keys whose scores are far below zero still share all the weight: a padded key gets 0."""
    expect_reference(submission, tol, FUNCTION, *_scores_moved_by_padding(draw, -MASKED_SCORE, 0.0),
                     what=msg("attention with real keys' scores far below zero"))


@question
def test_large_scores_stay_finite(submission, tol, draw):
    """Scores in the thousands (an offset shared by a query's keys) do not overflow."""
    Q, K, V = _qkv(draw)
    K = K + draw.normal((*K.shape[:-2], 1, K.shape[-1]), LARGE_OFFSET)  # every key shares a large component
    expect_reference(submission, tol, FUNCTION, Q, K, V, what=msg("attention with very large scores"))


@question
def test_a_batch_of_one(submission, tol, draw):
    """Size-1 axes stay: a batch of one gives Z (1, L_q, d_v) and A (1, L_q, L_k)."""
    Q, K, V = _qkv(draw, batch_ndim=0)
    expect_reference(submission, tol, FUNCTION, Q[None], K[None], V[None], what=msg("attention on a batch of one"))


@question
def test_batched_queries_against_unbatched_keys(submission, tol, draw):
    """Q (B, L_q, d_k) against K (L_k, d_k) and V (L_k, d_v): the batch axes broadcast."""
    Q, K, V = _qkv(draw)
    expect_reference(submission, tol, FUNCTION, Q, K[0], V[0], what=msg("attention with batched queries and unbatched keys"))


@question
def test_unbatched_queries_against_batched_keys(submission, tol, draw):
    """Q (L_q, d_k) against K (B, L_k, d_k) and V (B, L_k, d_v): the batch axes are in K and V only."""
    Q, K, V = _qkv(draw)
    expect_reference(submission, tol, FUNCTION, Q[0], K, V, what=msg("attention with unbatched queries and batched keys"))


@question
def test_integer_inputs(submission, tol, draw):
    """Integer Q, K and V are computed in float64."""
    Q, K, V = (np.round(2 * a).astype(np.int64) for a in _qkv(draw))
    expect_reference(submission, tol, FUNCTION, Q, K, V, what=msg("attention on integer inputs"))
