"""Random public cases of hw3, built by `attn-course build` into the release's public_cases.npz.

Every property grading judges has at least one case here, with inputs of our own: no, one
and two batch axes, one head and several, float32 kept and float64 kept, integer input,
large scores, each documented mask shape (``(n_q, n_kv)`` causal, ``(B, 1, n_kv)``,
``(n_kv,)``), and inputs left unmodified (every case checks that). Sizes are all different,
so a missing transpose shows.
"""

import numpy as np

from autograder.build.public_cases import PublicCase

HEADS, D_HEAD, N_Q, N_KV = 3, 5, 4, 6
D_MODEL = HEADS * D_HEAD


def _head_cases(rng) -> list:
    split, merge = "split_heads", "merge_heads"
    return [
        PublicCase("split_batched", split, (rng.standard_normal((2, N_Q, D_MODEL)), HEADS), weight=2),
        PublicCase("split_unbatched", split, (rng.standard_normal((N_Q, D_MODEL)), HEADS)),
        PublicCase("split_two_batch_axes", split, (rng.standard_normal((2, 3, N_Q, 12)), 4)),
        PublicCase("split_one_head", split, (rng.standard_normal((2, N_Q, D_MODEL)), 1)),
        PublicCase("split_float32", split, (rng.standard_normal((2, N_Q, D_MODEL)).astype(np.float32), HEADS)),
        PublicCase("split_integers", split, (rng.integers(-9, 10, size=(2, N_Q, D_MODEL)), HEADS)),
        PublicCase("merge_batched", merge, (rng.standard_normal((2, HEADS, N_Q, D_HEAD)),), weight=2),
        PublicCase("merge_unbatched", merge, (rng.standard_normal((HEADS, N_Q, D_HEAD)),)),
        PublicCase("merge_two_batch_axes", merge, (rng.standard_normal((3, 2, 4, N_Q, D_HEAD)),)),
        PublicCase("merge_float32", merge, (rng.standard_normal((2, HEADS, N_Q, D_HEAD)).astype(np.float32),)),
    ]


def _mha_cases(rng) -> list:
    X_q, X_kv = rng.standard_normal((2, N_Q, D_MODEL)), rng.standard_normal((2, N_KV, D_MODEL))
    weights = [rng.standard_normal((D_MODEL, D_MODEL)) / D_MODEL**0.5 for _ in range(4)]
    mask = rng.random((N_Q, N_KV)) < 0.7
    mask[:, 0] = True
    padding = rng.random((2, 1, N_KV)) < 0.7
    padding[..., 0] = True
    keys = rng.random(N_KV) < 0.7
    keys[0] = True
    X_self = rng.standard_normal((N_KV, D_MODEL))
    causal = np.tril(np.ones((N_KV, N_KV), dtype=bool))
    shared = X_kv + 200.0 * rng.standard_normal((2, 1, D_MODEL))  # every key shares a large component
    mha = "multi_head_attention"
    return [
        PublicCase("mha_cross_masked", mha, (X_q, X_kv, *weights, HEADS, mask), weight=2),
        PublicCase("mha_one_head", mha, (X_q, X_kv, *weights, 1)),
        PublicCase("mha_five_heads", mha, (X_q, X_kv, *weights, 5)),
        PublicCase("mha_self_unbatched", mha, (X_self, X_self, *weights, HEADS)),
        PublicCase("mha_causal", mha, (X_kv, X_kv, *weights, HEADS, causal), weight=2),
        PublicCase("mha_padding_mask", mha, (X_q, X_kv, *weights, HEADS, padding)),
        PublicCase("mha_key_mask", mha, (X_q, X_kv, *weights, HEADS, keys)),
        PublicCase("mha_float32", mha, (*(a.astype(np.float32) for a in (X_q, X_kv, *weights)), HEADS, mask)),
        PublicCase("mha_large_scores", mha, (10.0 * X_q, shared, *weights, HEADS)),
    ]


def cases(rng):
    """The cases; ``rng`` is seeded by the build, so they are the same on every build."""
    return [*_head_cases(rng), *_mha_cases(rng)]
