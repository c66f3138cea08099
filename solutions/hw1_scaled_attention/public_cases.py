"""Random public cases of hw1, built by `attn-course build` into the release's public_cases.npz.

Every property grading judges has at least one case here, with inputs of our own: batched
inputs (one and two batch dimensions), float32 kept and float64 kept, integer input, large
scores, each documented mask shape (``(L_q, L_k)``, ``(B, 1, L_k)``, ``(B, L_q, L_k)``,
``(L_k,)``, 0/1 integers), and inputs left unmodified (every case checks that). ``d_k`` is
never 4 and no input is symmetric, so a student who passes these has met what is graded.
"""

import numpy as np

from autograder.build.public_cases import PublicCase, Seed


def _softmax_cases(rng) -> list:
    offsets = np.array([[6000.0], [-4000.0], [0.0]])  # rows on very different scales: each needs its own max
    with_inf = rng.standard_normal((3, 5))
    with_inf[rng.random((3, 5)) < 0.4] = -np.inf
    with_inf[:, 2] = 0.5  # every row keeps a finite entry
    return [
        PublicCase("softmax_batched", "softmax", (3 * rng.standard_normal((2, 3, 5)),), weight=2),
        PublicCase("softmax_axis_0", "softmax", (rng.standard_normal((4, 3)),), {"axis": 0}, weight=2),
        PublicCase("softmax_middle_axis", "softmax", (rng.standard_normal((2, 5, 3)),), {"axis": -2}),
        PublicCase("softmax_large_scores", "softmax", (rng.standard_normal((3, 6)) + offsets,)),
        PublicCase("softmax_minus_inf", "softmax", (with_inf,)),
        PublicCase("softmax_integers", "softmax", (rng.integers(-4, 5, size=(3, 5)),)),
        PublicCase("softmax_float32", "softmax", (rng.standard_normal((2, 5)).astype(np.float32),)),
    ]


def _attention_inputs(rng, batch: tuple, L_q: int = 3, L_k: int = 6, dtype=np.float64) -> tuple:
    """Q (*batch, L_q, 5), K (*batch, L_k, 5), V (*batch, L_k, 7): d_k = 5, d_v = 7."""
    return tuple(rng.standard_normal((*batch, n, d)).astype(dtype) for n, d in ((L_q, 5), (L_k, 5), (L_k, 7)))


def _mask(rng, shape: tuple) -> np.ndarray:
    mask = rng.random(shape) < 0.7
    mask[..., 0] = True  # every query sees at least one key
    return mask


def _attention_cases(rng) -> list:
    Q, K, V = _attention_inputs(rng, (2,))
    Q_self, _, _ = _attention_inputs(rng, (2,), L_q=6)
    big_K = K.copy()
    padded = _mask(rng, (2, 1, 6))
    big_K[~padded[:, 0, :]] *= 800.0  # padded keys with huge scores must still get no weight
    shared = 300.0 * rng.standard_normal((2, 1, 5))  # every key shares a large component: scores in the thousands
    never = _mask(rng, (3, 6))
    never[:, 4] = False  # a key no query may see
    return [
        PublicCase("attention_unbatched", "scaled_dot_product_attention", _attention_inputs(rng, ())),
        PublicCase("attention_batched_masked", "scaled_dot_product_attention", (Q, K, V, _mask(rng, (3, 6))), weight=2),
        PublicCase("attention_two_batch_axes", "scaled_dot_product_attention", _attention_inputs(rng, (2, 3))),
        PublicCase("attention_float32", "scaled_dot_product_attention",
                   (*(a.astype(np.float32) for a in (Q, K, V)), _mask(rng, (3, 6))), weight=2),
        PublicCase("attention_causal", "scaled_dot_product_attention",
                   (Q_self, Q_self, rng.standard_normal((2, 6, 7)), np.tril(np.ones((6, 6), dtype=bool)))),
        PublicCase("attention_padding_mask", "scaled_dot_product_attention", (Q, K, V, padded)),
        PublicCase("attention_mask_per_batch", "scaled_dot_product_attention", (Q, K, V, _mask(rng, (2, 3, 6)))),
        PublicCase("attention_key_mask", "scaled_dot_product_attention", (Q, K, V, _mask(rng, (6,)))),
        PublicCase("attention_integer_mask", "scaled_dot_product_attention", (Q, K, V, _mask(rng, (3, 6)).astype(int))),
        PublicCase("attention_key_never_seen", "scaled_dot_product_attention", (Q, K, V, never)),
        PublicCase("attention_huge_padded_keys", "scaled_dot_product_attention", (Q, big_K, V, padded)),
        PublicCase("attention_large_scores", "scaled_dot_product_attention", (10.0 * Q, K + shared, V)),
    ]


def cases(rng):
    """The cases; ``rng`` is seeded by the build, so they are the same on every build."""
    return [
        *_softmax_cases(rng),
        PublicCase("causal_mask_6", "causal_mask", (6,)),
        PublicCase("causal_mask_1", "causal_mask", (1,)),
        *_attention_cases(rng),
        PublicCase("variance_d_k_12", "dot_product_variance", (12, 500, Seed(7)), weight=2),
        PublicCase("variance_d_k_40", "dot_product_variance", (40, 500, Seed(8)), weight=2),
    ]
