"""Wrong versions of the hw4 functions: the softmax and attention backward passes and the gradient-norm experiment.

Each has the signature and return structure of its :mod:`attn_reference.gradients` function.
"""

from __future__ import annotations

import math

import numpy as np

from attn_reference._validate import as_bool_mask, as_float_array
from attn_reference.gradients import _reduce_to_shape, softmax_backward, softmax_jacobian
from attn_reference.softmax import softmax
from autograder.diagnose.phrases import AXIS_ARGUMENT, LAST_AXIS, axis
from autograder.mutants import Mutant
from autograder.i18n import msg

#: The axis a student hard-codes when ignoring the ``axis`` argument.
HARD_CODED_AXIS = -1
#: The axis of the queries in a (..., L_q, L_k) weight matrix.
QUERY_AXIS = -2


# --- softmax_backward -------------------------------------------------------------------------


def _pair(A, dA) -> tuple[np.ndarray, np.ndarray]:
    return as_float_array(A, "A", min_ndim=1), as_float_array(dA, "dA", min_ndim=1)


def _backward_summing_along(A: np.ndarray, dA: np.ndarray, axis: int, keepdims: bool = True) -> np.ndarray:
    """``A * (dA - sum(dA * A))`` with the sum taken along ``axis``."""
    return A * (dA - np.sum(dA * A, axis=axis, keepdims=keepdims))


def softmax_backward_no_outer_product(A, dA, axis: int = -1) -> np.ndarray:
    """``A * dA``: only ``diag(a)`` of the Jacobian, the ``- a a^T`` part dropped."""
    A, dA = _pair(A, dA)
    return A * dA


def softmax_backward_ignores_axis(A, dA, axis: int = -1) -> np.ndarray:
    """Sum along the last axis whatever ``axis`` asks for."""
    return _backward_summing_along(*_pair(A, dA), axis=HARD_CODED_AXIS)


def softmax_backward_axis_0(A, dA, axis: int = -1) -> np.ndarray:
    """Sum along axis 0 whatever ``axis`` asks for."""
    return _backward_summing_along(*_pair(A, dA), axis=0)


def softmax_backward_no_keepdims(A, dA, axis: int = -1) -> np.ndarray:
    """Sum without ``keepdims=True``, so the sums broadcast against the wrong axis (or not at all)."""
    return _backward_summing_along(*_pair(A, dA), axis=axis, keepdims=False)


# --- scaled_dot_product_attention_backward --------------------------------------------------


def _attention_backward(
    Q, K, V, A, dZ, mask, *, scale_dQ=True, scale_dK=True, transpose_dK=True, transpose_dV=True,
    use_mask=True, softmax_axis=-1, reduce=True,
):
    """The reference's backward pass, with each step switchable to a known mistake."""
    Q, K, V, A, dZ = (as_float_array(x, name, min_ndim=2) for x, name in zip((Q, K, V, A, dZ), ("Q", "K", "V", "A", "dZ")))
    if mask is not None and use_mask:
        A = np.where(as_bool_mask(mask), A, np.zeros((), A.dtype))  # (..., L_q, L_k)
    scale = math.sqrt(Q.shape[-1])
    dV = (np.swapaxes(A, -1, -2) if transpose_dV else A) @ dZ  # (..., L_k, d_v) when transposed
    dA = dZ @ np.swapaxes(V, -1, -2)  # (..., L_q, L_k)
    dS = softmax_backward(*np.broadcast_arrays(A, dA), axis=softmax_axis)  # (..., L_q, L_k)
    dQ = dS @ K / (scale if scale_dQ else 1.0)  # (..., L_q, d_k)
    dK = (np.swapaxes(dS, -1, -2) if transpose_dK else dS) @ Q / (scale if scale_dK else 1.0)  # (..., L_k, d_k)
    if not reduce:
        return dQ, dK, dV
    return _reduce_to_shape(dQ, Q.shape), _reduce_to_shape(dK, K.shape), _reduce_to_shape(dV, V.shape)


def attention_backward_no_scale_in_dQ(Q, K, V, A, dZ, mask=None):
    """``dQ = dS K`` without the ``1/sqrt(d_k)``."""
    return _attention_backward(Q, K, V, A, dZ, mask, scale_dQ=False)


def attention_backward_no_scale_in_dK(Q, K, V, A, dZ, mask=None):
    """``dK = dS^T Q`` without the ``1/sqrt(d_k)``."""
    return _attention_backward(Q, K, V, A, dZ, mask, scale_dK=False)


def attention_backward_no_scale(Q, K, V, A, dZ, mask=None):
    """Neither ``dQ`` nor ``dK`` divided by ``sqrt(d_k)``."""
    return _attention_backward(Q, K, V, A, dZ, mask, scale_dQ=False, scale_dK=False)


def attention_backward_dK_not_transposed(Q, K, V, A, dZ, mask=None):
    """``dK = dS Q / sqrt(d_k)``: fits only when ``L_q == L_k``, and is wrong then."""
    return _attention_backward(Q, K, V, A, dZ, mask, transpose_dK=False)


def attention_backward_dV_not_transposed(Q, K, V, A, dZ, mask=None):
    """``dV = A dZ``: fits only when ``L_q == L_k``, and is wrong then."""
    return _attention_backward(Q, K, V, A, dZ, mask, transpose_dV=False)


def attention_backward_mask_ignored(Q, K, V, A, dZ, mask=None):
    """Use ``A`` as it is, so whatever it holds at masked positions passes gradient."""
    return _attention_backward(Q, K, V, A, dZ, mask, use_mask=False)


def attention_backward_softmax_over_queries(Q, K, V, A, dZ, mask=None):
    """Take the softmax backward's sum over the queries (axis -2) instead of the keys."""
    return _attention_backward(Q, K, V, A, dZ, mask, softmax_axis=QUERY_AXIS)


def attention_backward_not_reduced(Q, K, V, A, dZ, mask=None):
    """Return the broadcast gradients without summing them back to each input's shape."""
    return _attention_backward(Q, K, V, A, dZ, mask, reduce=False)


# --- softmax_gradient_norm --------------------------------------------------------------------


def _draws(d_k: int, n_keys: int, n_samples: int, rng: np.random.Generator, keys_first: bool = False):
    """(q, K) drawn in the documented order (q first), or keys first."""
    if keys_first:
        K = rng.standard_normal((n_samples, n_keys, d_k))
        return rng.standard_normal((n_samples, d_k)), K
    q = rng.standard_normal((n_samples, d_k))
    return q, rng.standard_normal((n_samples, n_keys, d_k))


def _weights(q: np.ndarray, K: np.ndarray, divisor: float) -> np.ndarray:
    return softmax((K @ q[:, :, None])[:, :, 0] / divisor, axis=-1)  # (n_samples, n_keys)


def _mean_frobenius(jacobians: np.ndarray) -> float:
    return float(np.mean(np.sqrt(np.sum(jacobians**2, axis=(-2, -1)))))


def gradient_norm_always_scaled(d_k: int, n_keys: int, n_samples: int, rng: np.random.Generator, scaled: bool = True) -> float:
    """Divide by ``sqrt(d_k)`` even when ``scaled`` is False."""
    q, K = _draws(d_k, n_keys, n_samples, rng)
    return _mean_frobenius(softmax_jacobian(_weights(q, K, math.sqrt(d_k))))


def gradient_norm_never_scaled(d_k: int, n_keys: int, n_samples: int, rng: np.random.Generator, scaled: bool = True) -> float:
    """Never divide by ``sqrt(d_k)``, even when ``scaled`` is True."""
    q, K = _draws(d_k, n_keys, n_samples, rng)
    return _mean_frobenius(softmax_jacobian(_weights(q, K, 1.0)))


def gradient_norm_scaled_by_dk(d_k: int, n_keys: int, n_samples: int, rng: np.random.Generator, scaled: bool = True) -> float:
    """Divide the scores by ``d_k`` instead of ``sqrt(d_k)``."""
    q, K = _draws(d_k, n_keys, n_samples, rng)
    return _mean_frobenius(softmax_jacobian(_weights(q, K, d_k if scaled else 1.0)))


def gradient_norm_keys_drawn_first(d_k: int, n_keys: int, n_samples: int, rng: np.random.Generator, scaled: bool = True) -> float:
    """Draw ``K`` before ``q``: right statistically, but not the documented stream."""
    q, K = _draws(d_k, n_keys, n_samples, rng, keys_first=True)
    return _mean_frobenius(softmax_jacobian(_weights(q, K, math.sqrt(d_k) if scaled else 1.0)))


def gradient_norm_no_outer_product(d_k: int, n_keys: int, n_samples: int, rng: np.random.Generator, scaled: bool = True) -> float:
    """Take the norm of ``diag(a)`` alone, the ``- a a^T`` part of the Jacobian dropped."""
    q, K = _draws(d_k, n_keys, n_samples, rng)
    weights = _weights(q, K, math.sqrt(d_k) if scaled else 1.0)  # (n_samples, n_keys)
    return _mean_frobenius(weights[:, :, None] * np.eye(n_keys))  # (n_samples, n_keys, n_keys) diagonals


def gradient_norm_squared(d_k: int, n_keys: int, n_samples: int, rng: np.random.Generator, scaled: bool = True) -> float:
    """Average the squared Frobenius norm (no square root)."""
    q, K = _draws(d_k, n_keys, n_samples, rng)
    jacobians = softmax_jacobian(_weights(q, K, math.sqrt(d_k) if scaled else 1.0))
    return float(np.mean(np.sum(jacobians**2, axis=(-2, -1))))


BACKWARD = "scaled_dot_product_attention_backward"
NORM = "softmax_gradient_norm"

#: The wrong versions above, each naming its bug (an id of diagnoses.py) in a sub-variant of its own.
MUTANTS: tuple[Mutant, ...] = (
    Mutant("softmax_backward.no_outer_product", "softmax_backward", softmax_backward_no_outer_product),
    Mutant("softmax_backward.wrong_axis", "softmax_backward", softmax_backward_ignores_axis, "ignores_axis",
           (("actual", LAST_AXIS), ("expected", AXIS_ARGUMENT))),
    Mutant("softmax_backward.wrong_axis", "softmax_backward", softmax_backward_axis_0, "axis_0",
           (("actual", axis(0)), ("expected", AXIS_ARGUMENT))),
    Mutant("softmax_backward.no_keepdims", "softmax_backward", softmax_backward_no_keepdims),
    Mutant("attention_backward.missing_scale", BACKWARD, attention_backward_no_scale_in_dQ, "dQ", (("gradients", "dQ"),)),
    Mutant("attention_backward.missing_scale", BACKWARD, attention_backward_no_scale_in_dK, "dK", (("gradients", "dK"),)),
    Mutant("attention_backward.missing_scale", BACKWARD, attention_backward_no_scale, "both",
           (("gradients", msg("{first} and {second}", first="dQ", second="dK")),)),
    Mutant("attention_backward.dk_not_transposed", BACKWARD, attention_backward_dK_not_transposed),
    Mutant("attention_backward.dv_not_transposed", BACKWARD, attention_backward_dV_not_transposed),
    Mutant("attention_backward.mask_ignored", BACKWARD, attention_backward_mask_ignored),
    Mutant("attention_backward.wrong_axis", BACKWARD, attention_backward_softmax_over_queries),
    Mutant("attention_backward.not_reduced", BACKWARD, attention_backward_not_reduced),
    Mutant("gradient_norm.scale_ignored", NORM, gradient_norm_never_scaled, "never_scaled",
           (("what", msg("it never divides the scores by sqrt(d_k), even when scaled is True")),)),
    Mutant("gradient_norm.scale_ignored", NORM, gradient_norm_always_scaled, "always_scaled",
           (("what", msg("it divides the scores by sqrt(d_k) even when scaled is False")),)),
    Mutant("gradient_norm.scaled_by_dk", NORM, gradient_norm_scaled_by_dk),
    Mutant("gradient_norm.keys_drawn_first", NORM, gradient_norm_keys_drawn_first),
    Mutant("gradient_norm.no_outer_product", NORM, gradient_norm_no_outer_product),
    Mutant("gradient_norm.squared", NORM, gradient_norm_squared),
)
