"""Public checks for hw4: small cases worked out by hand, shapes and exact zeros. The thorough tests are hidden."""

import math
from pathlib import Path

import numpy as np
import pytest

from checklib import CheckFailed, expect_array, expect_case, expect_shape, expect_tuple, public_case_params

#: A = [0.5, 0.25, 0.25] and dA = e_0: <dA, A> = 0.5, so dS = A * (dA - 0.5).
ROW_WEIGHTS = np.array([0.5, 0.25, 0.25])
ROW_EXPECTED = [0.25, -0.125, -0.125]
#: One query, two keys, d_k = 4: scores [2, 0] / sqrt(4) = [1, 0], so A = [p, 1 - p].
P = math.e / (math.e + 1)  # 0.7311
ONE_QUERY = np.array([[1.0, 0.0, 0.0, 0.0]])  # (L_q, d_k) = (1, 4)
TWO_KEYS = np.array([[2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])  # (L_k, d_k) = (2, 4)
TWO_VALUES = np.array([[1.0], [0.0]])  # (L_k, d_v) = (2, 1)
#: Loose bounds for the experiment: 2,000 samples put the means within about 0.003 of these.
SCALED_NORM_8_KEYS, SCALED_NORM_SLACK = 0.365, 0.03
UNSCALED_NORM_CEILING_D_K_256 = 0.15


def expect_exact_zeros(actual, name: str) -> None:
    """Every entry must be exactly 0, not merely small."""
    if np.any(np.asarray(actual) != 0):
        raise CheckFailed(f"{name}: expected exactly 0 everywhere, got {np.asarray(actual).ravel()[:4]}")


@pytest.mark.question("softmax_backward")
def test_softmax_backward_of_a_row_worked_out_by_hand(submission):
    """A = [0.5, 0.25, 0.25], dA = [1, 0, 0] give dS = [0.25, -0.125, -0.125]."""
    expect_array(submission.softmax_backward(ROW_WEIGHTS, np.array([1.0, 0.0, 0.0])), ROW_EXPECTED, "softmax_backward")


@pytest.mark.question("softmax_backward")
def test_a_constant_upstream_gradient_gives_zero(submission):
    """Softmax ignores a shift of its scores, so dA = (3, ..., 3) gives dS = 0 for each row of a (2, 4) batch."""
    weights = np.array([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]])
    dS = submission.softmax_backward(weights, np.full((2, 4), 3.0))
    expect_shape(dS, (2, 4), "softmax_backward of a (2, 4) batch")
    expect_array(dS, np.zeros((2, 4)), "softmax_backward with a constant dA")


@pytest.mark.question("softmax_backward")
def test_softmax_backward_along_axis_0(submission):
    """Columns that sum to 1, axis=0: each column is its own softmax."""
    weights = np.array([[0.5, 0.2], [0.25, 0.3], [0.25, 0.5]])  # (3, 2), columns sum to 1
    upstream = np.array([[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]])
    expected = [[0.25, 0.16], [-0.125, -0.06], [-0.125, -0.1]]
    expect_array(submission.softmax_backward(weights, upstream, axis=0), expected, "softmax_backward(A, dA, axis=0)")


@pytest.mark.question("scaled_dot_product_attention_backward")
def test_attention_backward_worked_out_by_hand(submission):
    """One query, two keys, d_k = 4, dZ = [[1]]: dQ, dK carry the 1/sqrt(d_k) = 1/2, dV = A^T dZ."""
    weights = np.array([[P, 1 - P]])  # (L_q, L_k) = (1, 2)
    dQ, dK, dV = expect_tuple(
        submission.scaled_dot_product_attention_backward(ONE_QUERY, TWO_KEYS, TWO_VALUES, weights, np.array([[1.0]])),
        3, "scaled_dot_product_attention_backward",
    )
    slope = P * (1 - P)  # dA = [1, 0] gives dS = [p(1 - p), -p(1 - p)] before the scale
    expect_array(dQ, [[slope, 0.0, 0.0, 0.0]], "dQ = dS K / sqrt(d_k)")
    expect_array(dK, [[slope / 2, 0.0, 0.0, 0.0], [-slope / 2, 0.0, 0.0, 0.0]], "dK = dS^T Q / sqrt(d_k)")
    expect_array(dV, [[P], [1 - P]], "dV = A^T dZ")


@pytest.mark.question("scaled_dot_product_attention_backward")
def test_attention_backward_shapes_with_every_size_different(submission):
    """Q (2, 3, 4), K (2, 5, 4), V (2, 5, 6): the gradients have the same shapes; Q = 0 makes dK = 0."""
    rng = np.random.default_rng(0)
    Q, K, V, dZ = np.zeros((2, 3, 4)), rng.standard_normal((2, 5, 4)), rng.standard_normal((2, 5, 6)), rng.standard_normal((2, 3, 6))
    uniform = np.full((2, 3, 5), 0.2)  # Q = 0 gives equal scores, so uniform weights
    dQ, dK, dV = expect_tuple(submission.scaled_dot_product_attention_backward(Q, K, V, uniform, dZ), 3, "attention backward")
    expect_shape(dQ, (2, 3, 4), "dQ")
    expect_shape(dK, (2, 5, 4), "dK")
    expect_shape(dV, (2, 5, 6), "dV")
    expect_array(dK, np.zeros((2, 5, 4)), "dK when Q = 0")
    expect_array(dV, np.repeat(0.2 * dZ.sum(axis=1, keepdims=True), 5, axis=1), "dV with uniform weights")


@pytest.mark.question("scaled_dot_product_attention_backward")
def test_masked_positions_get_exactly_zero_gradient(submission):
    """Key 2 is masked for both queries and query 1 may see no key: their gradients are exactly 0.

    Query 1's weights are uniform, as a forward pass that fills masked scores with -1e9
    leaves them: the mask, not A, decides where gradient may flow.
    """
    rng = np.random.default_rng(1)
    Q, K, V, dZ = rng.standard_normal((2, 4)), rng.standard_normal((3, 4)), rng.standard_normal((3, 2)), rng.standard_normal((2, 2))
    mask = np.array([[True, True, False], [False, False, False]])  # (L_q, L_k)
    scores = Q[0] @ K[:2].T / 2  # (2,): query 0 against its two allowed keys, d_k = 4
    weights = np.array([[*(np.exp(scores) / np.exp(scores).sum()), 0.0], [1 / 3, 1 / 3, 1 / 3]])  # (L_q, L_k)
    dQ, dK, dV = expect_tuple(submission.scaled_dot_product_attention_backward(Q, K, V, weights, dZ, mask), 3, "masked backward")
    expect_exact_zeros(dK[2], "dK of the masked key")
    expect_exact_zeros(dV[2], "dV of the masked key")
    expect_exact_zeros(dQ[1], "dQ of the query with no allowed key")


@pytest.mark.question("softmax_gradient_norm")
def test_gradient_norm_with_and_without_scaling(submission):
    """Scaled: about 0.365 for 8 keys whatever d_k; unscaled at d_k = 256: well below."""
    scaled = submission.softmax_gradient_norm(256, 8, 2_000, np.random.default_rng(0), scaled=True)
    unscaled = submission.softmax_gradient_norm(256, 8, 2_000, np.random.default_rng(0), scaled=False)
    expect_array(scaled, SCALED_NORM_8_KEYS, "scaled mean ||J||_F for d_k = 256", atol=SCALED_NORM_SLACK)
    if not 0 < unscaled < UNSCALED_NORM_CEILING_D_K_256:
        raise CheckFailed(f"unscaled mean ||J||_F for d_k = 256 should be below {UNSCALED_NORM_CEILING_D_K_256}, got {float(unscaled):.4f}")


@pytest.mark.question("softmax_gradient_norm")
def test_one_key_has_a_zero_jacobian(submission):
    """With a single key the softmax is always 1, so J = 0."""
    expect_array(submission.softmax_gradient_norm(4, 1, 10, np.random.default_rng(0)), 0.0, "softmax_gradient_norm with one key")


#: Random batched cases with the reference's answers, written by `attn-course build`.
CASES = Path(__file__).with_name("public_cases.npz")


@pytest.mark.parametrize("case", public_case_params(CASES))
def test_random_public_case(submission, case):
    """A random batched case (d_k other than 4, non-symmetric inputs) matches the reference's answer."""
    expect_case(submission, case)
