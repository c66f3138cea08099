"""Alignment scores for RNN encoder-decoder attention (Bahdanau 2014, Luong 2015).

Every score compares one decoder state ``s`` with each encoder state ``h_j``
(the rows of ``H``) and returns one number per source position.
"""

from __future__ import annotations

import numpy as np

from attn_reference._validate import as_float_array, batch_shape
from attn_reference.contract import Output, graded

#: Every score function returns one score per source position, with these batch axes.
SCORES = Output("the scores", axes=("T",))
STATE_AXES = {"s": 1, "H": 2}


def _states(s, H) -> tuple[np.ndarray, np.ndarray]:
    """Validate a decoder state (..., d_s) and encoder states (..., T, d_h)."""
    s = as_float_array(s, "s", min_ndim=1)
    H = as_float_array(H, "H", min_ndim=2)
    batch_shape(("s", s.shape), ("H", H.shape), core_ndim={"s": 1, "H": 2})
    return s, H


def _check_vector(v, name: str) -> np.ndarray:
    v = as_float_array(v, name, min_ndim=1)
    if v.ndim != 1:
        raise ValueError(f"{name} must be a vector of shape (d_a,), got {v.shape}")
    return v


def _check_matrix(W, name: str, shape: tuple) -> np.ndarray:
    W = as_float_array(W, name)
    if W.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {W.shape}")
    return W


@graded(SCORES, core_ndim=STATE_AXES)
def additive_score(s, H, W_a, U_a, v_a) -> np.ndarray:
    """Bahdanau's additive score ``e_j = v_a . tanh(W_a s + U_a h_j)``.

    Parameters
    ----------
    s : array_like, shape (..., d_s)
        Decoder state.
    H : array_like, shape (..., T, d_h)
        Encoder states.
    W_a : array_like, shape (d_a, d_s)
    U_a : array_like, shape (d_a, d_h)
    v_a : array_like, shape (d_a,)

    Returns
    -------
    numpy.ndarray, shape (..., T)

    Raises
    ------
    ValueError
        When a weight's shape does not fit ``s`` and ``H`` (the message names both).
    """
    s, H = _states(s, H)
    v_a = _check_vector(v_a, "v_a")
    d_a = v_a.shape[0]
    W_a = _check_matrix(W_a, "W_a", (d_a, s.shape[-1]))
    U_a = _check_matrix(U_a, "U_a", (d_a, H.shape[-1]))
    query_part = (s @ W_a.T)[..., None, :]  # (..., 1, d_a)
    key_part = H @ U_a.T  # (..., T, d_a)
    return np.tanh(query_part + key_part) @ v_a  # (..., T)


@graded(SCORES, core_ndim=STATE_AXES)
def dot_score(s, H) -> np.ndarray:
    """Luong's dot score ``e_j = s . h_j``.

    Parameters
    ----------
    s : array_like, shape (..., d)
    H : array_like, shape (..., T, d)

    Returns
    -------
    numpy.ndarray, shape (..., T)

    Raises
    ------
    ValueError
        When ``s`` and ``H`` have different state sizes.
    """
    s, H = _states(s, H)
    if s.shape[-1] != H.shape[-1]:
        raise ValueError(f"dot score needs equal sizes: s {s.shape}, H {H.shape}")
    return (H @ s[..., :, None])[..., 0]  # (..., T, 1) -> (..., T)


@graded(SCORES, calls=("dot_score",), core_ndim=STATE_AXES)
def general_score(s, H, W_a, *, dot_score=dot_score) -> np.ndarray:
    """Luong's general score ``e_j = s^T W_a h_j``.

    Parameters
    ----------
    s : array_like, shape (..., d_s)
    H : array_like, shape (..., T, d_h)
    W_a : array_like, shape (d_s, d_h)

    Other Parameters
    ----------------
    dot_score : callable, default :func:`dot_score`
        Scores the projected state ``s W_a`` against ``H``; the grader passes a
        student's own to carry an error in it forward.

    Returns
    -------
    numpy.ndarray, shape (..., T)

    Raises
    ------
    ValueError
        When ``W_a`` is not (d_s, d_h).
    """
    s, H = _states(s, H)
    W_a = _check_matrix(W_a, "W_a", (s.shape[-1], H.shape[-1]))
    return dot_score(s @ W_a, H)  # s^T W_a h_j = (W_a^T s) . h_j: a dot score of the projected state


@graded(SCORES, calls=("additive_score",), core_ndim=STATE_AXES)
def concat_score(s, H, W_a, v_a, *, additive_score=additive_score) -> np.ndarray:
    """Luong's concat score ``e_j = v_a . tanh(W_a [s; h_j])``.

    Splitting ``W_a`` into its first ``d_s`` and last ``d_h`` columns shows it is
    the additive score with ``W = W_a[:, :d_s]`` and ``U = W_a[:, d_s:]``.

    Parameters
    ----------
    s : array_like, shape (..., d_s)
    H : array_like, shape (..., T, d_h)
    W_a : array_like, shape (d_a, d_s + d_h)
    v_a : array_like, shape (d_a,)

    Other Parameters
    ----------------
    additive_score : callable, default :func:`additive_score`
        The additive score the concat score reduces to; the grader passes a
        student's own to carry an error in it forward.

    Returns
    -------
    numpy.ndarray, shape (..., T)

    Raises
    ------
    ValueError
        When ``W_a`` is not (d_a, d_s + d_h).
    """
    s, H = _states(s, H)
    v_a = _check_vector(v_a, "v_a")
    d_s = s.shape[-1]
    W_a = _check_matrix(W_a, "W_a", (v_a.shape[0], d_s + H.shape[-1]))
    return additive_score(s, H, W_a[:, :d_s], W_a[:, d_s:], v_a)
