"""Wrong versions of the RNN attention functions: the alignment scores and the context vector."""

from __future__ import annotations

import numpy as np

from attn_reference._validate import as_float_array
from attn_reference.context import attention_context
from attn_reference.masks import mask_scores
from attn_reference.rnn_scores import additive_score
from attn_reference.softmax import softmax
from autograder.diagnose.phrases import axis, named_axis
from autograder.mutants import Mutant


def _states(s, H) -> tuple[np.ndarray, np.ndarray]:
    return as_float_array(s, "s", min_ndim=1), as_float_array(H, "H", min_ndim=2)


def additive_missing_tanh(s, H, W_a, U_a, v_a) -> np.ndarray:
    """``v_a . (W_a s + U_a h_j)``: the additive score without the tanh."""
    s, H = _states(s, H)
    query_part = (s @ np.asarray(W_a).T)[..., None, :]  # (..., 1, d_a)
    key_part = H @ np.asarray(U_a).T  # (..., T, d_a)
    return (query_part + key_part) @ np.asarray(v_a)  # (..., T)


def additive_swapped_weights(s, H, W_a, U_a, v_a) -> np.ndarray:
    """``v_a . tanh(U_a s + W_a h_j)``; raises unless d_s == d_h."""
    s, H = _states(s, H)
    query_part = (s @ np.asarray(U_a).T)[..., None, :]  # (..., 1, d_a)
    key_part = H @ np.asarray(W_a).T  # (..., T, d_a)
    return np.tanh(query_part + key_part) @ np.asarray(v_a)  # (..., T)


def additive_no_source_axis(s, H, W_a, U_a, v_a) -> np.ndarray:
    """Add ``W_a s`` to ``U_a h_j`` without a source axis, so batched ``s`` broadcasts wrongly."""
    s, H = _states(s, H)
    query_part = s @ np.asarray(W_a).T  # (..., d_a): aligned with the T axis of key_part when batched
    key_part = H @ np.asarray(U_a).T  # (..., T, d_a)
    return np.tanh(query_part + key_part) @ np.asarray(v_a)  # (..., T)


def dot_no_batch_support(s, H) -> np.ndarray:
    """``np.dot(H, s)``: right for a single state ``s``, but for batched ``s`` (B, d) it contracts
    d with B, so it raises (or, when d == B, returns a (B, T, B) array)."""
    s, H = _states(s, H)
    return np.dot(H, s)  # (..., T) for s (d,)


def general_transposed(s, H, W_a) -> np.ndarray:
    """``h_j^T W_a s``, i.e. ``s^T W_a^T h_j``; raises unless W_a is square."""
    s, H = _states(s, H)
    projected = s @ np.asarray(W_a).T  # (..., d_h)
    return (H @ projected[..., :, None])[..., 0]  # (..., T, 1) -> (..., T)


def concat_order(s, H, W_a, v_a) -> np.ndarray:
    """``v_a . tanh(W_a [h_j; s])``: the first d_h columns of W_a applied to h_j, the rest to s."""
    s, H = _states(s, H)
    W_a = np.asarray(W_a)
    d_h = H.shape[-1]
    return additive_score(s, H, W_a[:, d_h:], W_a[:, :d_h], v_a)


def context_no_softmax(scores, H, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Use the raw scores as the weights (no softmax, mask ignored)."""
    alpha = as_float_array(scores, "scores", min_ndim=1)  # (..., T)
    H = as_float_array(H, "H", min_ndim=2)
    return (alpha[..., None, :] @ H)[..., 0, :], alpha  # (..., 1, d_h) -> (..., d_h)


def context_mask_ignored(scores, H, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Softmax over every source position, padded ones included."""
    return attention_context(scores, H)


def context_softmax_first_axis(scores, H, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Normalise the scores over axis 0 (the batch on batched input) instead of the source positions."""
    scores = as_float_array(scores, "scores", min_ndim=1)
    H = as_float_array(H, "H", min_ndim=2)
    alpha = softmax(mask_scores(scores, mask), axis=0)  # (..., T)
    return (alpha[..., None, :] @ H)[..., 0, :], alpha  # (..., 1, d_h) -> (..., d_h)


def additive_tanh_outside(s, H, W_a, U_a, v_a) -> np.ndarray:
    """``tanh(v_a . (W_a s + U_a h_j))``: the tanh applied after the read-out."""
    return np.tanh(additive_missing_tanh(s, H, W_a, U_a, v_a))  # (..., T)


def concat_split_at_d_h(s, H, W_a, v_a) -> np.ndarray:
    """Split W_a after d_h columns instead of d_s: right only when d_s == d_h."""
    s, H = _states(s, H)
    W_a = np.asarray(W_a)
    d_h = H.shape[-1]
    return additive_score(s, H, W_a[:, :d_h], W_a[:, d_h:], v_a)


def dot_sum_over_positions(s, H) -> np.ndarray:
    """Sum ``s * h_j`` over the positions instead of the features: one number per feature."""
    s, H = _states(s, H)
    return np.sum(s[..., None, :] * H, axis=-2)  # (..., d)


CONTEXT = "attention_context"

#: The wrong versions above, each naming its bug (an id of diagnoses.py) in a sub-variant of its own.
MUTANTS: tuple[Mutant, ...] = (
    Mutant("additive.missing_tanh", "additive_score", additive_missing_tanh),
    Mutant("additive.swapped_weights", "additive_score", additive_swapped_weights),
    Mutant("additive.no_source_axis", "additive_score", additive_no_source_axis),
    Mutant("additive.tanh_outside", "additive_score", additive_tanh_outside),
    Mutant("luong.no_batch_support", "dot_score", dot_no_batch_support),
    Mutant("luong.general_transposed", "general_score", general_transposed),
    Mutant("luong.concat_order", "concat_score", concat_order),
    Mutant("luong.concat_split", "concat_score", concat_split_at_d_h),
    Mutant("luong.sum_wrong_axis", "dot_score", dot_sum_over_positions),
    Mutant("context.no_softmax", CONTEXT, context_no_softmax),
    Mutant("context.mask_ignored", CONTEXT, context_mask_ignored),
    Mutant("context.wrong_axis", CONTEXT, context_softmax_first_axis, "first",
           (("actual", axis(0)), ("expected", named_axis("T", -1)))),
)
