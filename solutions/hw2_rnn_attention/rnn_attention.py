r"""Assignment 2 · Attention in RNN encoder-decoders: Bahdanau and Luong (RNN 编码器-解码器中的注意力).

At every decoding step the decoder state ``s`` is compared with each encoder state
``h_j`` (the rows of ``H``). The comparison gives one alignment score ``e_j`` per
source position; a softmax turns the scores into weights ``alpha_j``, and the
context vector is the weighted average of the encoder states:

.. math::

    e_j = \operatorname{score}(s, h_j), \qquad
    \alpha = \operatorname{softmax}(e), \qquad
    c = \sum_j \alpha_j h_j .

You implement four score functions (Bahdanau's additive score and Luong's dot,
general and concat scores) and the step from scores to the context vector.

Conventions (the same in every assignment of the course)
--------------------------------------------------------
* Shapes are written ``(..., T, d_h)``: ``...`` stands for any number of leading
  batch dimensions, including none. The batch dimensions of ``s`` and ``H``
  broadcast against each other: for example ``s`` of shape ``(T_y, d_s)`` and ``H``
  of shape ``(T_x, d_h)`` score all ``T_y`` decoder states at once, giving
  ``(T_y, T_x)``.
* Weight matrices have no batch dimensions and are applied as in the formulas:
  ``W_a s`` is ``W_a`` (shape ``(d_a, d_s)``) times the column vector ``s``. With
  ``s`` stored as a row (``(..., d_s)``), that is ``s @ W_a.T``; ``s @ W_a`` would be
  a different (wrong, or shape-mismatched) score. Assignment 3 switches to the
  Transformer's row convention, ``X @ W``.
* float32 inputs give float32 results; every other input (integers, lists, float64)
  is computed in float64.
* A mask is a boolean or 0/1 array. True/1 means *this query may attend to this
  key* (here: the decoder may look at this source position); False/0 marks
  padding, which gets weight exactly 0.
* Allowed imports: numpy, math, typing, functools, itertools, __future__,
  dataclasses. Write vectorised numpy: no Python loops over positions or batches.
* Input validation is not required.
"""

from __future__ import annotations

import numpy as np


def additive_score(s, H, W_a, U_a, v_a) -> np.ndarray:
    r"""Bahdanau's additive alignment score.

    .. math::

        e_j = v_a^\top \tanh\left(W_a s + U_a h_j\right)

    A one-hidden-layer network scores each (decoder state, encoder state) pair:
    both states are projected into a shared space of size ``d_a``, added, passed
    through ``tanh``, and read out by ``v_a``.

    Parameters
    ----------
    s : array_like, shape (..., d_s)
        Decoder state (Bahdanau uses the previous state :math:`s_{t-1}`).
    H : array_like, shape (..., T, d_h)
        Encoder states, one row ``h_j`` per source position.
    W_a : array_like, shape (d_a, d_s)
        Projection of the decoder state.
    U_a : array_like, shape (d_a, d_h)
        Projection of the encoder states.
    v_a : array_like, shape (d_a,)
        Read-out vector.

    Returns
    -------
    numpy.ndarray, shape (..., T)
        One score per source position.

    Raises
    ------
    ValueError
        When a weight's shape does not fit ``s`` and ``H``.
    """
    ### BEGIN SOLUTION
    s, H, W_a, U_a, v_a = (np.asarray(a) for a in (s, H, W_a, U_a, v_a))
    # float32 stays float32; everything else is computed in float64.
    s, H, W_a, U_a, v_a = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (s, H, W_a, U_a, v_a))

    # W_a s: the decoder's part, computed once and shared by every source position.
    # A row vector times W_a^T is the same as W_a times a column vector.
    decoder_part = s @ W_a.T  # (..., d_s) @ (d_s, d_a) -> (..., d_a)
    decoder_part = decoder_part[..., None, :]  # (..., d_a) -> (..., 1, d_a): broadcasts over T

    # U_a h_j for every j at once: each row of H is one encoder state.
    encoder_part = H @ U_a.T  # (..., T, d_h) @ (d_h, d_a) -> (..., T, d_a)

    hidden = np.tanh(decoder_part + encoder_part)  # (..., T, d_a)
    return hidden @ v_a  # (..., T, d_a) @ (d_a,) -> (..., T)
    ### END SOLUTION


def dot_score(s, H) -> np.ndarray:
    r"""Luong's dot alignment score.

    .. math::

        e_j = s^\top h_j

    The simplest score: no parameters, but the decoder and encoder states must
    have the same size ``d``.

    Parameters
    ----------
    s : array_like, shape (..., d)
        Decoder state.
    H : array_like, shape (..., T, d)
        Encoder states, one row ``h_j`` per source position.

    Returns
    -------
    numpy.ndarray, shape (..., T)
        One score per source position.

    Raises
    ------
    ValueError
        When ``s`` and ``H`` have different state sizes.
    """
    ### BEGIN SOLUTION
    s, H = (np.asarray(a) for a in (s, H))
    # float32 stays float32; everything else is computed in float64.
    s, H = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (s, H))

    # One matrix-vector product scores every encoder state: row j of H times s.
    s_column = s[..., :, None]  # (..., d) -> (..., d, 1)
    scores = H @ s_column  # (..., T, d) @ (..., d, 1) -> (..., T, 1)
    return scores[..., 0]  # (..., T, 1) -> (..., T)
    ### END SOLUTION


def general_score(s, H, W_a) -> np.ndarray:
    r"""Luong's general (bilinear) alignment score.

    .. math::

        e_j = s^\top W_a h_j

    A learned matrix sits between the two states, so they may differ in size and
    the model can learn which directions should match.

    Parameters
    ----------
    s : array_like, shape (..., d_s)
        Decoder state.
    H : array_like, shape (..., T, d_h)
        Encoder states, one row ``h_j`` per source position.
    W_a : array_like, shape (d_s, d_h)
        The bilinear weight.

    Returns
    -------
    numpy.ndarray, shape (..., T)
        One score per source position.

    Raises
    ------
    ValueError
        When ``W_a`` is not ``(d_s, d_h)``.
    """
    ### BEGIN SOLUTION
    s, H, W_a = (np.asarray(a) for a in (s, H, W_a))
    # float32 stays float32; everything else is computed in float64.
    s, H, W_a = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (s, H, W_a))

    # s^T W_a is a single vector of size d_h; it is then dotted with every h_j.
    query = s @ W_a  # (..., d_s) @ (d_s, d_h) -> (..., d_h)
    query_column = query[..., :, None]  # (..., d_h) -> (..., d_h, 1)
    scores = H @ query_column  # (..., T, d_h) @ (..., d_h, 1) -> (..., T, 1)
    return scores[..., 0]  # (..., T, 1) -> (..., T)
    ### END SOLUTION


def concat_score(s, H, W_a, v_a) -> np.ndarray:
    r"""Luong's concat alignment score.

    .. math::

        e_j = v_a^\top \tanh\left(W_a [s; h_j]\right)

    where :math:`[s; h_j]` is the concatenation of the two states (length
    ``d_s + d_h``). Splitting ``W_a`` into its first ``d_s`` and its last ``d_h``
    columns shows that this is Bahdanau's additive score in another notation.

    Parameters
    ----------
    s : array_like, shape (..., d_s)
        Decoder state.
    H : array_like, shape (..., T, d_h)
        Encoder states, one row ``h_j`` per source position.
    W_a : array_like, shape (d_a, d_s + d_h)
        Weight applied to the concatenated states.
    v_a : array_like, shape (d_a,)
        Read-out vector.

    Returns
    -------
    numpy.ndarray, shape (..., T)
        One score per source position.

    Raises
    ------
    ValueError
        When ``W_a`` is not ``(d_a, d_s + d_h)``.
    """
    ### BEGIN SOLUTION
    s, H, W_a, v_a = (np.asarray(a) for a in (s, H, W_a, v_a))
    # float32 stays float32; everything else is computed in float64.
    s, H, W_a, v_a = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (s, H, W_a, v_a))
    d_s = s.shape[-1]

    # W_a [s; h_j] = W_s s + W_h h_j: the first d_s columns of W_a only ever meet s,
    # the remaining d_h columns only ever meet h_j. So we never build [s; h_j].
    W_s = W_a[:, :d_s]  # (d_a, d_s)
    W_h = W_a[:, d_s:]  # (d_a, d_h)

    decoder_part = (s @ W_s.T)[..., None, :]  # (..., d_s) @ (d_s, d_a) -> (..., d_a) -> (..., 1, d_a)
    encoder_part = H @ W_h.T  # (..., T, d_h) @ (d_h, d_a) -> (..., T, d_a)
    hidden = np.tanh(decoder_part + encoder_part)  # (..., T, d_a)
    return hidden @ v_a  # (..., T, d_a) @ (d_a,) -> (..., T)
    ### END SOLUTION


def attention_context(scores, H, mask=None) -> tuple[np.ndarray, np.ndarray]:
    r"""Turn alignment scores into weights and average the encoder states with them.

    .. math::

        \alpha_j = \frac{\exp(e_j)}{\sum_k \exp(e_k)}, \qquad
        c = \sum_j \alpha_j h_j

    The softmax must be numerically stable (subtract the largest score first), and
    masked positions get a score of ``-inf`` before it, hence weight exactly 0.

    Parameters
    ----------
    scores : array_like, shape (..., T)
        Alignment scores ``e``, e.g. from :func:`additive_score`.
    H : array_like, shape (..., T, d_h)
        Encoder states, one row ``h_j`` per source position.
    mask : array_like of bool or 0/1, broadcastable to (..., T), optional
        True/1 at the source positions the decoder may attend to, False/0 at
        padding. None (the default) allows every position. A row with no allowed
        position is undefined (its weights are NaN).

    Returns
    -------
    c : numpy.ndarray, shape (..., d_h)
        The context vector.
    alpha : numpy.ndarray, shape (..., T)
        The attention weights; they sum to 1 over ``T``.

    Raises
    ------
    ValueError
        When ``scores`` and ``H`` disagree on ``T`` or their batch dimensions do not
        broadcast.
    """
    ### BEGIN SOLUTION
    scores, H = (np.asarray(a) for a in (scores, H))
    # float32 stays float32; everything else is computed in float64.
    scores, H = (a if a.dtype == np.float32 else a.astype(np.float64) for a in (scores, H))

    # Padding gets a score of -inf, hence weight exactly 0.
    if mask is not None:
        allowed = np.asarray(mask).astype(bool)  # broadcastable to (..., T)
        scores = np.where(allowed, scores, -np.inf)  # (..., T)

    # Stable softmax over the source positions: shift by the largest score first.
    # A row that is all -inf gives NaN (undefined); we let that happen silently.
    with np.errstate(invalid="ignore"):
        shifted = scores - np.max(scores, axis=-1, keepdims=True)  # (..., T)
        exps = np.exp(shifted)  # (..., T), every entry in [0, 1]
        alpha = exps / np.sum(exps, axis=-1, keepdims=True)  # (..., T)

    # c = sum_j alpha_j h_j: a (1, T) row of weights times the (T, d_h) states.
    alpha_row = alpha[..., None, :]  # (..., T) -> (..., 1, T)
    context = alpha_row @ H  # (..., 1, T) @ (..., T, d_h) -> (..., 1, d_h)
    return context[..., 0, :], alpha  # (..., 1, d_h) -> (..., d_h); (..., T)
    ### END SOLUTION
