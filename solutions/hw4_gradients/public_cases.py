"""Random public cases of hw4, built by `attn-course build` into the release's public_cases.npz.

A batched softmax backward along a middle axis, an attention backward with broadcast batch
dimensions and a mask (d_k = 5, d_v = 7, L_q != L_k), and the gradient-norm experiment.
"""

from attn_reference import scaled_dot_product_attention, softmax
from autograder.build.public_cases import PublicCase, Seed


def cases(rng):
    """The cases; ``rng`` is seeded by the build, so they are the same on every build."""
    weights = softmax(2 * rng.standard_normal((2, 6, 3)), axis=1)  # (2, 6, 3): a softmax over axis 1
    Q = rng.standard_normal((2, 3, 5))  # (B, L_q, d_k): d_k = 5
    K = rng.standard_normal((6, 5))  # (L_k, d_k): shared by the batch
    V = rng.standard_normal((6, 7))  # (L_k, d_v)
    mask = rng.random((3, 6)) < 0.7  # (L_q, L_k)
    mask[:, 0] = True
    Z, A = scaled_dot_product_attention(Q, K, V, mask)
    return [
        PublicCase("softmax_backward_axis_1", "softmax_backward", (weights, rng.standard_normal((2, 6, 3))), {"axis": 1}),
        PublicCase("attention_backward_broadcast_masked", "scaled_dot_product_attention_backward",
                   (Q, K, V, A, rng.standard_normal(Z.shape), mask)),
        PublicCase("gradient_norm_d_k_24", "softmax_gradient_norm", (24, 6, 300, Seed(11)), {"scaled": True}),
    ]
