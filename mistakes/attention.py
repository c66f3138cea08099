"""Wrong versions of :func:`attn_reference.scaled_dot_product_attention`.

Each takes ``(Q, K, V, mask=None)`` and returns ``(Z, A)`` like the reference.
"""

from __future__ import annotations

import math

import numpy as np

from attn_reference._validate import as_bool_mask, as_float_array
from attn_reference.masks import mask_scores
from attn_reference.softmax import softmax
from autograder.diagnose.phrases import named_axis
from autograder.mutants import Mutant

#: The axis of the queries in a (..., L_q, L_k) score matrix.
QUERY_AXIS = -2
#: The axis a student reads as "the second dimension" of Q.
SECOND_AXIS = 1


def _inputs(Q, K, V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (
        as_float_array(Q, "Q", min_ndim=2),
        as_float_array(K, "K", min_ndim=2),
        as_float_array(V, "V", min_ndim=2),
    )


def _raw_scores(Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    return Q @ np.swapaxes(K, -1, -2)  # (..., L_q, L_k)


def _attend(scores: np.ndarray, V: np.ndarray, mask, axis: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """Masked softmax of ``scores`` along ``axis``, then the weighted sum of values."""
    weights = softmax(mask_scores(scores, mask), axis=axis)  # (..., L_q, L_k)
    return weights @ V, weights  # (..., L_q, d_v), (..., L_q, L_k)


def _scaled_by(Q, K, V, mask, size_of) -> tuple[np.ndarray, np.ndarray]:
    """Scale by ``sqrt(size_of(Q, K, V))`` instead of ``sqrt(d_k)``."""
    Q, K, V = _inputs(Q, K, V)
    return _attend(_raw_scores(Q, K) / math.sqrt(size_of(Q, K, V)), V, mask)


def no_scaling(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Softmax of the raw scores ``Q K^T``."""
    Q, K, V = _inputs(Q, K, V)
    return _attend(_raw_scores(Q, K), V, mask)


def scale_by_dk(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Divide the scores by ``d_k`` instead of ``sqrt(d_k)``."""
    Q, K, V = _inputs(Q, K, V)
    return _attend(_raw_scores(Q, K) / Q.shape[-1], V, mask)


def scale_by_d_v(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Divide the scores by ``sqrt(d_v)``, the size of the values."""
    return _scaled_by(Q, K, V, mask, lambda Q, K, V: V.shape[-1])


def scale_by_num_queries(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Divide the scores by ``sqrt(L_q)``, the number of queries."""
    return _scaled_by(Q, K, V, mask, lambda Q, K, V: Q.shape[-2])


def scale_by_num_keys(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Divide the scores by ``sqrt(L_k)``, the number of keys."""
    return _scaled_by(Q, K, V, mask, lambda Q, K, V: K.shape[-2])


def scale_by_second_dim(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Divide by ``sqrt(Q.shape[1])``: d_k on 2-D input, a sequence or batch size on batched input."""
    return _scaled_by(Q, K, V, mask, lambda Q, K, V: Q.shape[SECOND_AXIS])


def scale_after_softmax(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Softmax of the unscaled scores, then divide the weights by ``sqrt(d_k)``."""
    Q, K, V = _inputs(Q, K, V)
    weights = softmax(mask_scores(_raw_scores(Q, K), mask), axis=-1) / math.sqrt(Q.shape[-1])
    return weights @ V, weights


def mask_inverted(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Block the positions where the mask is True and keep those where it is False."""
    Q, K, V = _inputs(Q, K, V)
    blocked = None if mask is None else ~as_bool_mask(mask)
    return _attend(_raw_scores(Q, K) / math.sqrt(Q.shape[-1]), V, blocked)


def mask_after_softmax(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Softmax over every key, then zero the masked weights without renormalising."""
    Q, K, V = _inputs(Q, K, V)
    weights = softmax(_raw_scores(Q, K) / math.sqrt(Q.shape[-1]), axis=-1)  # (..., L_q, L_k)
    if mask is not None:
        weights = weights * as_bool_mask(mask)
    return weights @ V, weights


def multiplicative_mask(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Multiply the scores by the mask (masked scores become 0, not ``-inf``)."""
    Q, K, V = _inputs(Q, K, V)
    scores = _raw_scores(Q, K) / math.sqrt(Q.shape[-1])  # (..., L_q, L_k)
    if mask is not None:
        scores = scores * as_bool_mask(mask)
    return _attend(scores, V, None)


def softmax_over_queries(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Normalise each key's column over the queries (axis -2) instead of each query's row."""
    Q, K, V = _inputs(Q, K, V)
    return _attend(_raw_scores(Q, K) / math.sqrt(Q.shape[-1]), V, mask, axis=QUERY_AXIS)


def no_batch_support(Q, K, V, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Use ``K.T``, which on batched input also reverses the batch axes."""
    Q, K, V = _inputs(Q, K, V)
    return _attend(Q @ K.T / math.sqrt(Q.shape[-1]), V, mask)


SDPA = "scaled_dot_product_attention"

#: The wrong versions above, each naming its bug (an id of diagnoses.py) in a sub-variant of its own.
MUTANTS: tuple[Mutant, ...] = (
    Mutant("attention.no_scaling", SDPA, no_scaling),
    Mutant("attention.scale_by_dk", SDPA, scale_by_dk),
    Mutant("attention.scale_by_wrong_dim", SDPA, scale_by_d_v, "d_v", (("dimension", "d_v"),)),
    Mutant("attention.scale_by_wrong_dim", SDPA, scale_by_num_queries, "num_queries", (("dimension", "L_q"),)),
    Mutant("attention.scale_by_wrong_dim", SDPA, scale_by_num_keys, "num_keys", (("dimension", "L_k"),)),
    Mutant("attention.scale_by_wrong_dim", SDPA, scale_by_second_dim, "shape_1", (("dimension", "Q.shape[1]"),)),
    Mutant("attention.scale_after_softmax", SDPA, scale_after_softmax),
    Mutant("attention.mask_inverted", SDPA, mask_inverted),
    Mutant("attention.mask_after_softmax", SDPA, mask_after_softmax),
    Mutant("attention.multiplicative_mask", SDPA, multiplicative_mask),
    Mutant("attention.wrong_axis", SDPA, softmax_over_queries, "queries",
           (("actual", named_axis("L_q", -2)), ("expected", named_axis("L_k", -1)))),
    Mutant("attention.no_batch_support", SDPA, no_batch_support),
)
