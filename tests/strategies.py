"""Hypothesis strategies shared by the test suite.

Shapes use the project's vocabulary: ``(..., L_q, d_k)`` is any number of leading batch
dimensions followed by the core dimensions. Values are bounded so that an independent
loop implementation in float64 is an accurate oracle for both float32 and float64.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

FLOAT_DTYPES = (np.float32, np.float64)
#: Integer and float encodings of a 0/1 mask that must behave like the boolean mask.
NUMERIC_MASK_DTYPES = (np.int8, np.int64, np.uint8, np.float64)

MAX_BATCH_DIMS = 2
MAX_BATCH_SIDE = 3
MAX_LENGTH = 5  # longest sequence (L_q, L_k, T, n)
MAX_DIM = 6  # largest feature dimension (d_k, d_v, d_h, ...)
ELEMENT_BOUND = 3.0  # |entry| of generated arrays

#: Moderate and deadline-free: loop oracles in pure Python are slow on purpose.
QUICK = settings(max_examples=30, deadline=None)


def float_dtypes():
    """float32 or float64."""
    return st.sampled_from(FLOAT_DTYPES)


def lengths(max_value: int = MAX_LENGTH):
    """A sequence length, at least 1."""
    return st.integers(1, max_value)


def dims(max_value: int = MAX_DIM):
    """A feature dimension, at least 1."""
    return st.integers(1, max_value)


def batch_shapes(max_dims: int = MAX_BATCH_DIMS):
    """Leading batch dimensions ``...``, possibly none."""
    return hnp.array_shapes(min_dims=0, max_dims=max_dims, min_side=1, max_side=MAX_BATCH_SIDE)


def broadcastable_batch_shapes(num_shapes: int, max_dims: int = MAX_BATCH_DIMS):
    """``num_shapes`` batch shapes that broadcast together (sizes 1 and missing dims included)."""
    return hnp.mutually_broadcastable_shapes(
        num_shapes=num_shapes, min_dims=0, max_dims=max_dims, min_side=1, max_side=MAX_BATCH_SIDE
    ).map(lambda shapes: shapes.input_shapes)


def bounded_floats(dtype, bound: float = ELEMENT_BOUND):
    """Finite scalars in ``[-bound, bound]`` representable in ``dtype``."""
    width = 32 if np.dtype(dtype) == np.float32 else 64
    return st.floats(-bound, bound, width=width, allow_nan=False, allow_infinity=False, allow_subnormal=False)


def float_arrays(dtype, shape, bound: float = ELEMENT_BOUND):
    """Arrays of ``dtype`` and ``shape`` with bounded, finite entries."""
    return hnp.arrays(np.dtype(dtype), shape, elements=bounded_floats(dtype, bound)).map(np.array)


@st.composite
def row_masks(draw, shape):
    """Boolean mask of ``shape`` (..., L_k) with at least one True along the last axis.

    Every query row of a broadcast (..., L_q, L_k) mask then has an allowed key.
    """
    allowed = np.array(draw(hnp.arrays(np.bool_, shape)))
    keep = draw(hnp.arrays(np.intp, shape[:-1], elements=st.integers(0, shape[-1] - 1)))
    np.put_along_axis(allowed, np.asarray(keep)[..., None], True, axis=-1)
    return allowed


@st.composite
def shapes_broadcasting_to(draw, target):
    """A shape that broadcasts to ``target``: a suffix of it with some sides replaced by 1."""
    target = tuple(target)
    ndim = draw(st.integers(0, len(target)))
    return tuple(draw(st.sampled_from((1, side))) for side in target[len(target) - ndim :])


def mask_shapes(batch, L_q, L_k):
    """A mask shape ending in L_k that broadcasts to (*batch, L_q, L_k).

    Covers the full shape, a shared (L_q, L_k) mask, a (..., 1, L_k) padding mask and (L_k,).
    """
    return shapes_broadcasting_to(tuple(batch) + (L_q,)).map(lambda leading: leading + (L_k,))


def numeric_mask_dtypes():
    """A non-boolean dtype for a 0/1 mask."""
    return st.sampled_from(NUMERIC_MASK_DTYPES)


@dataclass
class AttentionBackwardInputs:
    """Inputs of an attention backward pass.

    ``batch`` broadcasts every batch shape; ``score_batch`` only Q's and K's, which is what
    the scores ``Q K^T`` (and so the mask) have.
    """

    Q: np.ndarray  # (..., L_q, d_k)
    K: np.ndarray  # (..., L_k, d_k)
    V: np.ndarray  # (..., L_k, d_v)
    dZ: np.ndarray  # (*batch, L_q, d_v)
    mask: np.ndarray | None  # broadcastable to (*score_batch, L_q, L_k), a True in every row
    batch: tuple
    score_batch: tuple


@st.composite
def attention_backward_inputs(draw, with_mask: bool = True, dtypes=FLOAT_DTYPES):
    """Q, K, V whose batch shapes broadcast together (independently), dZ, and maybe a mask."""
    dtype = draw(st.sampled_from(dtypes))
    q_batch, k_batch, v_batch = draw(broadcastable_batch_shapes(3))
    batch = np.broadcast_shapes(q_batch, k_batch, v_batch)
    score_batch = np.broadcast_shapes(q_batch, k_batch)
    L_q, L_k, d_k, d_v = draw(lengths()), draw(lengths()), draw(dims()), draw(dims())
    Q = draw(float_arrays(dtype, q_batch + (L_q, d_k)))
    K = draw(float_arrays(dtype, k_batch + (L_k, d_k)))
    V = draw(float_arrays(dtype, v_batch + (L_k, d_v)))
    dZ = draw(float_arrays(dtype, batch + (L_q, d_v)))
    mask = None
    if with_mask and draw(st.booleans()):
        mask = draw(mask_shapes(score_batch, L_q, L_k).flatmap(row_masks))
    return AttentionBackwardInputs(Q, K, V, dZ, mask, batch, score_batch)
