# hw2: your work goes in this file. Replace each `raise NotImplementedError(...)` with your code.
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

中文 (简体)
-----------

作业 2 · RNN 编码器-解码器中的注意力：Bahdanau 与 Luong。

在解码的每一步，解码器状态 ``s`` 都与每个编码器状态 ``h_j``（``H`` 的各行）比较。比较的结果是每个源位置
一个对齐分数 ``e_j``；softmax 把这些分数变成权重 ``alpha_j``，上下文向量就是编码器状态的加权平均：

.. math::

    e_j = \operatorname{score}(s, h_j), \qquad
    \alpha = \operatorname{softmax}(e), \qquad
    c = \sum_j \alpha_j h_j .

你要实现四个打分函数（Bahdanau 的加性分数，以及 Luong 的 dot、general 和 concat 分数），以及从分数到
上下文向量的那一步。各函数文档字符串的中文版在本作业的中文 notebook 里。

约定（本课程所有作业都相同）
----------------------------
* 形状写作 ``(..., T, d_h)``：``...`` 表示任意多个前导批量维度，也可以没有。``s`` 与 ``H`` 的批量维度
  相互广播：例如形状为 ``(T_y, d_s)`` 的 ``s`` 和形状为 ``(T_x, d_h)`` 的 ``H`` 会一次性为全部 ``T_y``
  个解码器状态打分，得到 ``(T_y, T_x)``。
* 权重矩阵没有批量维度，按公式中的方式使用：``W_a s`` 是 ``W_a``（形状 ``(d_a, d_s)``）乘以列向量
  ``s``。``s`` 按行存放（``(..., d_s)``），所以这就是 ``s @ W_a.T``；``s @ W_a`` 会得到另一个（错误的，
  或形状不匹配的）分数。作业 3 改用 Transformer 的行约定 ``X @ W``。
* float32 输入得到 float32 结果；其他所有输入（整数、列表、float64）都按 float64 计算。
* 掩码是布尔数组或 0/1 数组。True/1 表示*这个查询可以关注这个键*（这里是：解码器可以看这个源位置）；
  False/0 标出填充位置，其权重恰好为 0。
* 允许的 import：numpy、math、typing、functools、itertools、__future__、dataclasses。请写向量化的
  numpy 代码：不要对位置或批量写 Python 循环。
* 不要求做输入检查。
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
    raise NotImplementedError("additive_score: not implemented yet (hw2, question 1)")


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
    raise NotImplementedError("dot_score: not implemented yet (hw2, question 2)")


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
    raise NotImplementedError("general_score: not implemented yet (hw2, question 3)")


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
    raise NotImplementedError("concat_score: not implemented yet (hw2, question 4)")


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
    raise NotImplementedError("attention_context: not implemented yet (hw2, question 5)")
