"""The draw claims: which calls break them (autograder.judge.claims)."""

from __future__ import annotations

import numpy as np

from autograder.judge.claims import Claims, call_problems, claims_of, documented_shapes, draws

FUNCTION = "scaled_dot_product_attention"


def qkv(L_q, L_k, d_k, d_v, batch=(4,)):
    return np.zeros((*batch, L_q, d_k)), np.zeros((*batch, L_k, d_k)), np.zeros((*batch, L_k, d_v))


def test_shapes_come_from_the_reference_docstring():
    assert documented_shapes(FUNCTION) == {"Q": ("...", "L_q", "d_k"), "K": ("...", "L_k", "d_k"),
                                           "V": ("...", "L_k", "d_v"), "mask": ("...", "L_q", "L_k")}


def test_distinct_sizes_keep_the_claim():
    assert call_problems(FUNCTION, qkv(2, 3, 5, 6), {}, Claims()) == []


def test_d_v_equal_to_d_k_breaks_it():
    assert call_problems(FUNCTION, qkv(2, 3, 5, 5), {}, Claims()) == ["['d_k', 'd_v'] all have size 5"]


def test_a_batch_size_equal_to_a_named_size_breaks_it():
    assert call_problems(FUNCTION, qkv(2, 3, 5, 6, batch=(3,)), {}, Claims()) == ["['L_k', 'batch axis -1'] all have size 3"]


def test_declared_equal_sizes_must_be_equal():
    square = Claims(same=(("L_q", "L_k"),))
    assert call_problems(FUNCTION, qkv(3, 3, 5, 6), {}, square) == []
    assert call_problems(FUNCTION, qkv(2, 3, 5, 6), {}, square) == ["['L_q', 'L_k'] should be equal: [2, 3]"]


def test_size_one_axes_are_exempt():
    assert call_problems(FUNCTION, qkv(1, 3, 5, 1, batch=(1,)), {}, Claims()) == []


def test_a_mask_row_that_blocks_nothing_breaks_a_blocking_claim_only():
    mask = np.array([True, True, False])  # (L_k,)
    Q, K, V = qkv(2, 3, 5, 6)
    assert call_problems(FUNCTION, (Q, K, V, mask), {}, Claims(blocks=True)) == []
    full = np.ones(3, dtype=bool)
    assert call_problems(FUNCTION, (Q, K, V, full), {}, Claims()) == []
    assert call_problems(FUNCTION, (Q, K, V, full), {}, Claims(blocks=True)) == ["a mask row blocks no key"]


def test_a_row_with_no_key_needs_its_declaration():
    mask = np.array([[True, False, False], [False, False, False]])  # (L_q, L_k)
    Q, K, V = qkv(2, 3, 5, 6)
    assert call_problems(FUNCTION, (Q, K, V, mask), {}, Claims()) == ["a mask row allows no key"]
    assert call_problems(FUNCTION, (Q, K, V, mask), {}, Claims(empty_rows=True)) == []


def test_integer_size_arguments_count():
    X = np.zeros((3, 4, 6))  # (B, n, d_model)
    assert call_problems("split_heads", (X, 2), {}, Claims()) == []
    assert call_problems("split_heads", (X, 4), {}, Claims()) == ["['n', 'num_heads'] all have size 4"]


def test_the_decorator_records_the_claims_and_returns_the_test():
    def test(): ...
    assert draws(blocks=True)(test) is test
    assert claims_of(test) == Claims(blocks=True)
    assert claims_of(lambda: None) == Claims()
