"""Hidden tests of multi_head_attention (hw3, question 3). Inputs are drawn afresh on every run."""

import numpy as np
import pytest

from autograder.judge.draw import HEAD_COUNTS, HEAD_SIZES, KEPT_PER_ROW
from autograder.grade.expect import expect_reference
from autograder.i18n import msg
from autograder.judge.claims import draws

question = pytest.mark.question("multi_head_attention")
FUNCTION = "multi_head_attention"
#: Sequence lengths n_q and n_kv are drawn from (kept short: every head attends).
SEQUENCE_LENGTHS = (2, 3, 5, 6, 7)
#: Spread of a vector added to every key/value position: it gives each query's scores a large offset.
LARGE_OFFSET = 2_000.0


def _inputs(draw, heads: int, batch_ndim: int = 1, self_attention: bool = False, dtype=np.float64, masked=False):
    """(X_q, X_kv, W_q, W_k, W_v, W_o) with d_model = heads * d_head and n_q != n_kv (n_kv > 2 when ``masked``)."""
    draw.take(heads)
    d_head = draw.size(HEAD_SIZES)
    d_model = heads * d_head
    draw.take(d_model)
    n_kv = draw.size(tuple(n for n in SEQUENCE_LENGTHS if n > KEPT_PER_ROW) if masked else SEQUENCE_LENGTHS)
    n_q = draw.size(SEQUENCE_LENGTHS)
    batch = draw.batch(batch_ndim) if batch_ndim else ()
    X_q = draw.normal((*batch, n_q, d_model), 1.0, dtype)  # (..., n_q, d_model)
    X_kv = X_q if self_attention else draw.normal((*batch, n_kv, d_model), 1.0, dtype)  # (..., n_kv, d_model)
    weights = [draw.normal((d_model, d_model), 1 / np.sqrt(d_model), dtype) for _ in range(4)]
    return (X_q, X_kv, *weights)


@question(weight=2)
@pytest.mark.parametrize("heads", [1, *HEAD_COUNTS])
def test_cross_attention_head_counts(submission, tol, draw, heads):
    """Cross-attention (n_q != n_kv) with 1 to 4 heads."""
    expect_reference(submission, tol, FUNCTION, *_inputs(draw, heads), heads, what=msg("multi_head_attention with {heads} heads", heads=str(heads)))


@question
@draws(same=(("n_q", "n_kv"),))
def test_unbatched_self_attention(submission, tol, draw):
    """Self-attention on one (n, d_model) sequence."""
    heads = draw.size(HEAD_COUNTS)
    expect_reference(submission, tol, FUNCTION, *_inputs(draw, heads, 0, self_attention=True), heads,
                     what=msg("self-attention on one sequence"))


@question(weight=2)
@draws(same=(("n_q", "n_kv"),))
def test_causal_mask_applies_to_every_head(submission, tol, draw):
    """A causal (n, n) mask applies to every head."""
    heads = draw.size(HEAD_COUNTS)
    inputs = _inputs(draw, heads, self_attention=True)
    n = inputs[0].shape[-2]
    mask = np.tril(np.ones((n, n), dtype=bool))
    expect_reference(submission, tol, FUNCTION, *inputs, heads, mask, what=msg("multi-head attention with a causal mask"))


@question
@draws(blocks=True)
def test_padding_mask_per_sequence(submission, tol, draw):
    """A (B, 1, n_kv) padding mask, different per sequence, applies to every head."""
    heads = draw.size(HEAD_COUNTS)
    inputs = _inputs(draw, heads, masked=True)
    X_q, X_kv = inputs[:2]
    mask = draw.padding_mask(X_q.shape[:-2], X_kv.shape[-2])[..., None, :]  # (B, 1, n_kv)
    expect_reference(submission, tol, FUNCTION, *inputs, heads, mask, what=msg("multi-head attention with a padding mask"))


@question
@draws(blocks=True)
def test_one_dimensional_padding_mask(submission, tol, draw):
    """A (n_kv,) mask shared by every query, head and sequence."""
    heads = draw.size(HEAD_COUNTS)
    inputs = _inputs(draw, heads, masked=True)
    mask = draw.padding_mask((), inputs[1].shape[-2])  # (n_kv,)
    expect_reference(submission, tol, FUNCTION, *inputs, heads, mask, what=msg("multi-head attention with a 1-D padding mask"))


@question
@draws(blocks=True)
def test_float32(submission, tol, draw):
    """float32 inputs (and a boolean mask) give float32 outputs."""
    heads = draw.size(HEAD_COUNTS)
    inputs = _inputs(draw, heads, dtype=np.float32, masked=True)
    mask = draw.mask((inputs[0].shape[-2], inputs[1].shape[-2]))  # (n_q, n_kv)
    expect_reference(submission, tol, FUNCTION, *inputs, heads, mask, what=msg("multi-head attention on float32"))


@question
def test_large_scores_stay_finite(submission, tol, draw):
    """Scores in the thousands (every key sharing a large component) stay finite in every head."""
    heads = draw.size(HEAD_COUNTS)
    X_q, X_kv, *weights = _inputs(draw, heads)
    X_kv = X_kv + draw.normal((*X_kv.shape[:-2], 1, X_kv.shape[-1]), LARGE_OFFSET)  # (..., 1, d_model) shared by all keys
    expect_reference(submission, tol, FUNCTION, X_q, X_kv, *weights, heads, what=msg("multi-head attention with very large scores"))


#: How far above the others a padded key's score is in every head: an additive -1e4 "mask" leaves it on top.
MASKED_SCORE = 2e4
#: Spread of the projected queries around the direction the padded keys share.
QUERY_SPREAD = 0.1


@question
def test_batch_axes_in_one_argument(submission, tol, draw):
    """Batched queries against an unbatched key/value sequence, and the other way round: the batch axes broadcast."""
    heads = draw.size(HEAD_COUNTS)
    X_q, X_kv, *weights = _inputs(draw, heads)  # both (B, n, d_model)
    for q_part, kv_part in ((X_q, X_kv[0]), (X_q[0], X_kv)):
        expect_reference(submission, tol, FUNCTION, q_part, kv_part, *weights, heads,
                         what=msg("multi_head_attention of X_q {X_q} against X_kv {X_kv}", X_q=str(q_part.shape), X_kv=str(kv_part.shape)))


@question
@draws(blocks=True)
def test_integer_mask(submission, tol, draw):
    """A 0/1 integer (B, n_q, n_kv) mask means the same as a boolean one in every head."""
    heads = draw.size(HEAD_COUNTS)
    inputs = _inputs(draw, heads, masked=True)
    mask = draw.mask(inputs[0].shape[:-1] + inputs[1].shape[-2:-1], dtype=np.int64)  # (B, n_q, n_kv)
    expect_reference(submission, tol, FUNCTION, *inputs, heads, mask, what=msg("multi-head attention with a 0/1 integer mask"))


@question
def test_a_batch_of_one(submission, tol, draw):
    """A batch of one keeps its axis: Y (1, n_q, d_model) and A (1, num_heads, n_q, n_kv)."""
    heads = draw.size(HEAD_COUNTS)
    X_q, X_kv, *weights = _inputs(draw, heads, batch_ndim=0)
    expect_reference(submission, tol, FUNCTION, X_q[None], X_kv[None], *weights, heads, what=msg("multi-head attention on a batch of one"))


@question
def test_integer_inputs(submission, tol, draw):
    """Integer inputs are computed in float64, with integer weights or float ones (nothing is cast to the inputs' type)."""
    heads = draw.size(HEAD_COUNTS)
    X_q, X_kv, *weights = _inputs(draw, heads)
    arrays = [np.round(2 * X_q), np.round(2 * X_kv), *(np.round(3 * W) for W in weights)]
    expect_reference(submission, tol, FUNCTION, *(a.astype(np.int64) for a in arrays), heads,
                     what=msg("multi-head attention on integer inputs"))
    expect_reference(submission, tol, FUNCTION, *(a.astype(np.int64) for a in arrays[:2]), *weights, heads,
                     what=msg("multi-head attention on integer inputs with float weights"))


@question
@draws(blocks=True)
def test_padded_keys_may_hold_huge_scores(submission, tol, draw):
    """Padded keys whose scores are far above the others in every head get weight 0 and change nothing."""
    heads = draw.size(HEAD_COUNTS)
    X_q, X_kv, W_q, W_k, W_v, W_o = _inputs(draw, heads, masked=True)
    d_model = X_q.shape[-1]
    d_head = d_model // heads
    padding = draw.padding_mask(X_q.shape[:-2], X_kv.shape[-2])  # (B, n_kv): True for real keys
    shared = draw.normal((heads, d_head))
    shared = (shared / np.linalg.norm(shared, axis=-1, keepdims=True)).reshape(d_model)  # of length 1 in every head
    projected_queries = shared + QUERY_SPREAD * draw.normal(X_q.shape)  # (B, n_q, d_model): near ``shared`` in every head
    X_q = projected_queries @ np.linalg.inv(W_q)  # so that X_q @ W_q is projected_queries
    padded_key = (MASKED_SCORE * np.sqrt(d_head) * shared) @ np.linalg.inv(W_k)  # (d_model,): projected, scores of about 2e4
    X_kv = np.where(padding[..., None], X_kv, padded_key)  # (B, n_kv, d_model)
    expect_reference(submission, tol, FUNCTION, X_q, X_kv, W_q, W_k, W_v, W_o, heads, padding[..., None, :],
                     what=msg("multi-head attention with huge scores on padded keys"))
