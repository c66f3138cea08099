"""Where a rearranging function puts each input entry, read from its answer on numbered entries: each axis's step,
said along the input axis it moves on, beside the expected steps."""

from __future__ import annotations

import numpy as np

import attn_reference
from autograder.diagnose.probes import patterns
from autograder.diagnose.probes.arrangement import arrangement, steps
from tests.autograder.diagnose.test_probes import case_of, normal


def _split_into(chunks):
    def split_heads(X, num_heads):  # np.split into ``chunks(num_heads, d_head)`` pieces of the features
        X = np.asarray(X, dtype=np.float64)
        count = chunks(num_heads, X.shape[-1] // num_heads)
        return np.stack(np.split(X, count, axis=-1), axis=-3)
    return split_heads


def test_steps_say_each_axis_along_the_input_axis_it_moves_on():
    ids = np.arange(8 * 10, dtype=np.float64).reshape(8, 10)
    right = attn_reference.split_heads(ids, 2)  # (2, 8, 5)
    assert str(steps(right, ids.shape, ["n", "d_model"])) == "5 along d_model; 1 along n; 1 along d_model"
    shuffled = np.random.default_rng(0).permutation(right.ravel()).reshape(right.shape)
    assert steps(shuffled, ids.shape, ["n", "d_model"]) is None  # no single step: nothing said


def test_arrangement_names_a_split_into_the_wrong_number_of_chunks():
    X = normal((8, 10), "X")
    case = case_of("split_heads", (X, 2), student=_split_into(lambda heads, d_head: d_head), recall=True)
    said = str(arrangement(case))
    assert "sizes (5, 8, 2) it steps through X by (2 along d_model; 1 along n; 1 along d_model)" in said
    assert "sizes (2, 8, 5) step by (5 along d_model; 1 along n; 1 along d_model)" in said
    assert patterns.heads_arrangement(case)[0].facts["shapes"] == arrangement(case)


def test_arrangement_silent_on_a_right_split_and_without_a_recall():
    X = normal((8, 10), "X")
    assert arrangement(case_of("split_heads", (X, 2), student=_split_into(lambda heads, d_head: heads), recall=True)) is None
    no_recall = case_of("split_heads", (X, 2), student=_split_into(lambda heads, d_head: d_head))
    assert arrangement(no_recall) is None
