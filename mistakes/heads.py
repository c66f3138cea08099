"""Wrong versions of :func:`attn_reference.split_heads`, :func:`attn_reference.merge_heads`
and :func:`attn_reference.multi_head_attention`."""

from __future__ import annotations

import math

import numpy as np

from attn_reference._validate import as_float_array
from attn_reference.heads import merge_heads, split_heads
from attn_reference.masks import mask_scores
from attn_reference.multi_head import _head_mask
from attn_reference.scaled_attention import scaled_dot_product_attention
from attn_reference.softmax import softmax
from autograder.mutants import Mutant


def _model_input(X, num_heads: int) -> np.ndarray:
    X = as_float_array(X, "X", min_ndim=2)
    if num_heads < 1 or X.shape[-1] % num_heads:
        raise ValueError(f"num_heads={num_heads} does not divide d_model of X {X.shape}")
    return X


def split_reshape_without_transpose(X, num_heads: int) -> np.ndarray:
    """Reshape (..., n, d_model) straight to (..., h, n, d_head), mixing positions across heads."""
    X = _model_input(X, num_heads)
    *batch, n, d_model = X.shape
    return X.reshape(*batch, num_heads, n, d_model // num_heads)  # (..., h, n, d_head)


def split_interleaved(X, num_heads: int) -> np.ndarray:
    """Give head h every num_heads-th feature (h, h + num_heads, ...) instead of a contiguous block."""
    X = _model_input(X, num_heads)
    *batch, n, d_model = X.shape
    per_feature = X.reshape(*batch, n, d_model // num_heads, num_heads)  # (..., n, d_head, h)
    return np.moveaxis(per_feature, -1, -3)  # (..., h, n, d_head)


def merge_without_transpose(X) -> np.ndarray:
    """Reshape (..., h, n, d_head) straight to (..., n, h * d_head) without moving the head axis back."""
    X = as_float_array(X, "X", min_ndim=3)
    *batch, num_heads, n, d_head = X.shape
    return X.reshape(*batch, n, num_heads * d_head)  # (..., n, d_model)


def _heads(X_q, X_kv, W_q, W_k, W_v, num_heads: int):
    """Project and split: Q (..., h, n_q, d_head), K and V (..., h, n_kv, d_head)."""
    X_q = as_float_array(X_q, "X_q", min_ndim=2)
    X_kv = as_float_array(X_kv, "X_kv", min_ndim=2)
    return (
        split_heads(X_q @ np.asarray(W_q), num_heads),
        split_heads(X_kv @ np.asarray(W_k), num_heads),
        split_heads(X_kv @ np.asarray(W_v), num_heads),
    )


def mha_scale_by_d_model(
    X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None
) -> tuple[np.ndarray, np.ndarray]:
    """Each head scales its scores by ``sqrt(d_model)`` instead of ``sqrt(d_head)``."""
    Q, K, V = _heads(X_q, X_kv, W_q, W_k, W_v, num_heads)
    d_model = Q.shape[-1] * num_heads
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_model)  # (..., h, n_q, n_kv)
    weights = softmax(mask_scores(scores, _head_mask(mask)), axis=-1)  # (..., h, n_q, n_kv)
    return merge_heads(weights @ V) @ np.asarray(W_o), weights  # (..., n_q, d_model), (..., h, n_q, n_kv)


def mha_missing_output_projection(
    X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None
) -> tuple[np.ndarray, np.ndarray]:
    """Return the merged heads without the final ``@ W_o``."""
    Q, K, V = _heads(X_q, X_kv, W_q, W_k, W_v, num_heads)
    Z, A = scaled_dot_product_attention(Q, K, V, _head_mask(mask))  # (..., h, n_q, d_head)
    return merge_heads(Z), A  # (..., n_q, d_model), (..., h, n_q, n_kv)


def mha_keys_from_queries(
    X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None
) -> tuple[np.ndarray, np.ndarray]:
    """Compute keys and values from ``X_q`` instead of ``X_kv`` (right only for self-attention)."""
    Q, K, V = _heads(X_q, X_q, W_q, W_k, W_v, num_heads)
    Z, A = scaled_dot_product_attention(Q, K, V, _head_mask(mask))  # (..., h, n_q, d_head)
    return merge_heads(Z) @ np.asarray(W_o), A  # (..., n_q, d_model), (..., h, n_q, n_q)


def split_float_division(X, num_heads: int) -> np.ndarray:
    """Compute d_head with ``/``: reshape rejects the float."""
    X = _model_input(X, num_heads)
    *batch, n, d_model = X.shape
    per_head = X.reshape(*batch, n, num_heads, d_model / num_heads)  # raises TypeError
    return np.swapaxes(per_head, -2, -3)


def merge_interleaved(X) -> np.ndarray:
    """Put feature i of every head side by side: the inverse of the interleaved split."""
    X = as_float_array(X, "X", min_ndim=3)
    *batch, num_heads, n, d_head = X.shape
    per_feature = np.moveaxis(X, -3, -1)  # (..., n, d_head, h)
    return per_feature.reshape(*batch, n, d_head * num_heads)  # (..., n, d_model)


MHA = "multi_head_attention"

#: The wrong versions above, each naming its bug (an id of diagnoses.py) in a sub-variant of its own.
MUTANTS: tuple[Mutant, ...] = (
    Mutant("heads.reshape_without_transpose", "split_heads", split_reshape_without_transpose),
    Mutant("heads.interleaved", "split_heads", split_interleaved),
    Mutant("heads.float_division", "split_heads", split_float_division),
    Mutant("heads.merge_mismatch", "merge_heads", merge_without_transpose),
    Mutant("heads.merge_interleaved", "merge_heads", merge_interleaved),
    Mutant("mha.scale_by_d_model", MHA, mha_scale_by_d_model),
    Mutant("mha.missing_output_projection", MHA, mha_missing_output_projection),
    Mutant("mha.keys_from_queries", MHA, mha_keys_from_queries),
)
