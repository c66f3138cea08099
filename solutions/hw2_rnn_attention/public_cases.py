"""Random public cases of hw2, built by `attn-course build` into the release's public_cases.npz.

Every property grading judges has at least one case here, with inputs of our own: batched
and unbatched states, sizes d_s, d_h, d_a and T all different (and all equal, where swapped
weights would still fit), float32 kept and float64 kept, integer states, large scores, each
documented mask shape (``(B, T)``, ``(T,)`` shared by the batch), and inputs left unmodified
(every case checks that).
"""

import numpy as np

from autograder.build.public_cases import PublicCase

B, T, D_S, D_H, D_A = 2, 5, 3, 6, 7


def _score_cases(rng) -> list:
    s, H = rng.standard_normal((B, D_S)), rng.standard_normal((B, T, D_H))
    s_h = rng.standard_normal((B, D_H))  # a decoder state the size of the encoder's
    square = rng.standard_normal((B, 8)), rng.standard_normal((B, T, 8))  # d_s = d_h (= d_a)
    f32 = (s.astype(np.float32), H.astype(np.float32))
    W, U, v = rng.standard_normal((D_A, D_S)), rng.standard_normal((D_A, D_H)), rng.standard_normal(D_A)
    W_cat = rng.standard_normal((D_A, D_S + D_H))
    W_gen = rng.standard_normal((D_S, D_H))
    return [
        PublicCase("additive_batched", "additive_score", (s, H, W, U, v), weight=2),
        PublicCase("additive_square", "additive_score", (*square, *(rng.standard_normal((8, 8)) for _ in range(2)),
                                                         rng.standard_normal(8))),
        PublicCase("additive_float32", "additive_score", (*f32, *(a.astype(np.float32) for a in (W, U, v)))),
        PublicCase("dot_batched", "dot_score", (s_h, H), weight=2),
        PublicCase("dot_unbatched", "dot_score", (s_h[0], H[0])),
        PublicCase("dot_integers", "dot_score", (rng.integers(-3, 4, size=(B, D_H)), rng.integers(-3, 4, size=(B, T, D_H)))),
        PublicCase("dot_float32", "dot_score", (s_h.astype(np.float32), H.astype(np.float32))),
        PublicCase("general_batched", "general_score", (s, H, W_gen), weight=2),
        PublicCase("general_square", "general_score", (*square, rng.standard_normal((8, 8)))),
        PublicCase("general_float32", "general_score", (*f32, W_gen.astype(np.float32))),
        PublicCase("concat_batched", "concat_score", (s, H, W_cat, v), weight=2),
        PublicCase("concat_equal_sizes", "concat_score", (*square, rng.standard_normal((D_A, 16)), v)),
        PublicCase("concat_float32", "concat_score", (*f32, W_cat.astype(np.float32), v.astype(np.float32))),
    ]


def _context_cases(rng) -> list:
    H = rng.standard_normal((B, T, D_H))
    padding = rng.random((B, T)) < 0.7
    padding[:, 0] = True
    huge = 2 * rng.standard_normal((B, T))
    huge[~padding] = 5000.0  # padded positions with huge scores must still get no weight
    shared = rng.random(T) < 0.7
    shared[0] = True
    return [
        PublicCase("context_batched", "attention_context", (2 * rng.standard_normal((B, T)), H), weight=2),
        PublicCase("context_unbatched", "attention_context", (rng.standard_normal(T), H[0])),
        PublicCase("context_decoder_steps", "attention_context", (rng.standard_normal((4, T)), H[0])),
        PublicCase("context_padded", "attention_context", (2 * rng.standard_normal((B, T)), H, padding), weight=2),
        PublicCase("context_huge_padded", "attention_context", (huge, H, padding)),
        PublicCase("context_shared_mask", "attention_context", (rng.standard_normal((B, T)), H, shared)),
        PublicCase("context_float32", "attention_context",
                   (rng.standard_normal((B, T)).astype(np.float32), H.astype(np.float32))),
        PublicCase("context_large_scores", "attention_context",
                   (rng.standard_normal((B, T)) + 3000.0 * rng.standard_normal((B, 1)), H)),
    ]


def cases(rng):
    """The cases; ``rng`` is seeded by the build, so they are the same on every build."""
    return [*_score_cases(rng), *_context_cases(rng)]
