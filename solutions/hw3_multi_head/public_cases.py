"""Random public cases of hw3, built by `attn-course build` into the release's public_cases.npz.

Batched inputs with 3 heads of size 5 (d_model = 15), n_q != n_kv, and a mask.
"""

from autograder.build.public_cases import PublicCase


def cases(rng):
    """The cases; ``rng`` is seeded by the build, so they are the same on every build."""
    heads, d_head, n_q, n_kv = 3, 5, 4, 6
    d_model = heads * d_head
    X_q = rng.standard_normal((2, n_q, d_model))  # (B, n_q, d_model)
    X_kv = rng.standard_normal((2, n_kv, d_model))  # (B, n_kv, d_model)
    weights = [rng.standard_normal((d_model, d_model)) / d_model**0.5 for _ in range(4)]
    mask = rng.random((n_q, n_kv)) < 0.7  # (n_q, n_kv)
    mask[:, 0] = True
    return [
        PublicCase("split_batched", "split_heads", (X_q, heads)),
        PublicCase("merge_batched", "merge_heads", (rng.standard_normal((2, heads, n_q, d_head)),)),
        PublicCase("multi_head_cross_masked", "multi_head_attention", (X_q, X_kv, *weights, heads, mask)),
    ]
