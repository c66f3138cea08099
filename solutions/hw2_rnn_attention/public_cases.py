"""Random public cases of hw2, built by `attn-course build` into the release's public_cases.npz.

One random batched case per function with d_s, d_h, d_a and T all different (and other
than 4), so transposed or swapped weights show.
"""

from autograder.build.public_cases import PublicCase


def cases(rng):
    """The cases; ``rng`` is seeded by the build, so they are the same on every build."""
    B, T, d_s, d_h, d_a = 2, 5, 3, 6, 7
    s = rng.standard_normal((B, d_s))  # (B, d_s)
    H = rng.standard_normal((B, T, d_h))  # (B, T, d_h)
    s_h = rng.standard_normal((B, d_h))  # (B, d_h): a decoder state the size of the encoder's
    padding = rng.random((B, T)) < 0.7  # (B, T)
    padding[:, 0] = True
    return [
        PublicCase("additive_batched", "additive_score",
                   (s, H, rng.standard_normal((d_a, d_s)), rng.standard_normal((d_a, d_h)), rng.standard_normal(d_a))),
        PublicCase("dot_batched", "dot_score", (s_h, H)),
        PublicCase("general_batched", "general_score", (s, H, rng.standard_normal((d_s, d_h)))),
        PublicCase("concat_batched", "concat_score", (s, H, rng.standard_normal((d_a, d_s + d_h)), rng.standard_normal(d_a))),
        PublicCase("context_padded", "attention_context", (2 * rng.standard_normal((B, T)), H, padding)),
    ]
