"""Hidden tests of attention_context (hw2, question 5). Inputs are drawn afresh on every run."""

import numpy as np
import pytest

from autograder.grade.expect import expect_reference
from autograder.i18n import msg
from autograder.judge.claims import draws
from autograder.judge.draw import MASKABLE_SIZES, SIZES

question = pytest.mark.question("attention_context")
FUNCTION = "attention_context"
#: Spread of ordinary scores, and of a per-step offset large enough to overflow an unshifted exp.
SPREAD = 2.0
LARGE_OFFSET = 2_000.0
#: A padded position's score: an additive -1e4 "mask" leaves it far above the others.
MASKED_SCORE = 2e4


def _inputs(draw, batch_ndim: int = 1, steps: tuple[int, ...] = SIZES):
    """scores (..., T) and H (..., T, d_h), T (from ``steps``) and d_h different from the batch sizes."""
    T = draw.size(steps)  # MASKABLE_SIZES for a mask that keeps two positions and pads one
    d_h = draw.size()
    batch = draw.batch(batch_ndim) if batch_ndim else ()
    return draw.normal((*batch, T), SPREAD), draw.normal((*batch, T, d_h))


@question(weight=2)
def test_batched_without_mask(submission, tol, draw):
    """Context vectors and weights for batched scores."""
    expect_reference(submission, tol, FUNCTION, *_inputs(draw), what=msg("attention_context on a batch"))


@question
def test_unbatched(submission, tol, draw):
    """One decoder step: scores (T,), states (T, d_h)."""
    expect_reference(submission, tol, FUNCTION, *_inputs(draw, batch_ndim=0), what=msg("attention_context on one step"))


@question
def test_decoder_steps_share_the_encoder_states(submission, tol, draw):
    """Scores (T_y, T_x) for several decoder steps against one H (T_x, d_h)."""
    T_x, T_y, d_h = draw.sizes(3)
    scores, H = draw.normal((T_y, T_x), SPREAD), draw.normal((T_x, d_h))
    expect_reference(submission, tol, FUNCTION, scores, H, what=msg("attention_context for several decoder steps"))


@question(weight=2)
@draws(blocks=True)
def test_padding_mask(submission, tol, draw):
    """Padded source positions (mask 0) get weight 0."""
    scores, H = _inputs(draw, steps=MASKABLE_SIZES)
    mask = draw.padding_mask(scores.shape[:-1], scores.shape[-1], dtype=np.int64)  # (B, T)
    expect_reference(submission, tol, FUNCTION, scores, H, mask, what=msg("attention_context with padding"))


@question
@draws(blocks=True)
def test_a_mask_given_as_a_nested_list(submission, tol, draw):
    """The mask is array_like: a nested list of 0/1 means what the array does."""
    scores, H = _inputs(draw, steps=MASKABLE_SIZES)
    mask = draw.padding_mask(scores.shape[:-1], scores.shape[-1], dtype=np.int64).tolist()
    expect_reference(submission, tol, FUNCTION, scores, H, mask, what=msg("attention_context with a mask given as a list"))


@question
@draws(blocks=True)
def test_padded_positions_may_hold_huge_scores(submission, tol, draw):
    """Padded positions whose scores are far above the others get weight 0 and change nothing."""
    scores, H = _inputs(draw, steps=MASKABLE_SIZES)
    mask = draw.padding_mask(scores.shape[:-1], scores.shape[-1])  # (B, T)
    expect_reference(submission, tol, FUNCTION, np.where(mask, scores, MASKED_SCORE), H, mask,
                     what=msg("attention_context with huge scores at padding"))


@question
@draws(blocks=True)
def test_mask_broadcast_over_batch(submission, tol, draw):
    """One (T,) boolean mask shared by the whole batch."""
    scores, H = _inputs(draw, steps=MASKABLE_SIZES)
    mask = draw.mask(scores.shape[-1:])
    expect_reference(submission, tol, FUNCTION, scores, H, mask, what=msg("attention_context with a shared mask"))


@question
def test_float32_stays_float32(submission, tol, draw):
    """float32 scores and states give float32 c and alpha."""
    scores, H = _inputs(draw)
    expect_reference(submission, tol, FUNCTION, scores.astype(np.float32), H.astype(np.float32),
                     what=msg("attention_context on float32"))


@question
def test_large_scores(submission, tol, draw):
    """Scores in the thousands (a large offset per decoder step) stay finite."""
    scores, H = _inputs(draw)
    offsets = draw.normal((*scores.shape[:-1], 1), LARGE_OFFSET)  # (B, 1)
    expect_reference(submission, tol, FUNCTION, scores + offsets, H, what=msg("attention_context with large scores"))


@question
def test_shared_scores_against_batched_states(submission, tol, draw):
    """Scores (T,) shared by a batch of states H (B, T, d_h): the batch axes are in H only."""
    scores, H = _inputs(draw)
    expect_reference(submission, tol, FUNCTION, scores[0], H, what=msg("attention_context of scores {scores} against H {H}",
                                                                       scores=str(scores[0].shape), H=str(H.shape)))


@question
def test_a_batch_of_one(submission, tol, draw):
    """scores (1, T) and H (1, T, d_h) give c (1, d_h) and alpha (1, T): the size-1 axis stays."""
    scores, H = _inputs(draw, batch_ndim=0)
    expect_reference(submission, tol, FUNCTION, scores[None], H[None], what=msg("attention_context on a batch of one"))


@question
def test_integer_inputs(submission, tol, draw):
    """Integer scores and states are computed in float64."""
    scores, H = (np.round(a).astype(np.int64) for a in _inputs(draw))
    expect_reference(submission, tol, FUNCTION, scores, H, what=msg("attention_context on integer inputs"))
