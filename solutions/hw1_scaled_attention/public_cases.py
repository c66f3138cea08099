"""Random public cases of hw1, built by `attn-course build` into the release's public_cases.npz.

One random batched, non-symmetric case per function, with d_k other than 4, so a
student who passes the public checks has met batching, masks and a real d_k.
"""

from autograder.build.public_cases import PublicCase, Seed


def cases(rng):
    """The cases; ``rng`` is seeded by the build, so they are the same on every build."""
    Q = rng.standard_normal((2, 3, 5))  # (B, L_q, d_k): d_k = 5
    K = rng.standard_normal((2, 6, 5))  # (B, L_k, d_k)
    V = rng.standard_normal((2, 6, 7))  # (B, L_k, d_v)
    mask = rng.random((3, 6)) < 0.7  # (L_q, L_k), shared by the batch
    mask[:, 0] = True  # every query sees at least one key
    return [
        PublicCase("softmax_batched", "softmax", (3 * rng.standard_normal((2, 3, 5)),)),
        PublicCase("softmax_axis_0", "softmax", (rng.standard_normal((4, 3)),), {"axis": 0}),
        PublicCase("causal_mask_6", "causal_mask", (6,)),
        PublicCase("attention_batched_masked", "scaled_dot_product_attention", (Q, K, V, mask)),
        PublicCase("attention_float32", "scaled_dot_product_attention",
                   (Q.astype("float32"), K.astype("float32"), V.astype("float32"))),
        PublicCase("variance_d_k_12", "dot_product_variance", (12, 500, Seed(7))),
    ]
