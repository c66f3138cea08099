"""The catalog of known-wrong versions ("mutants") of the graded functions.

When a submission's result is wrong, the grader runs every mutant of that function on the
same inputs; a mutant whose output matches the student's names the likely bug through its
``hint``. A bug that shows up in several ways is listed once per way: those sub-variants
share the ``id`` (what the bug is) and differ in ``variant`` (how it shows).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from autograder.mutants import (
    attention_mutants as attention,
    gradients_mutants as gradients,
    heads_mutants as heads,
    mask_mutants as masks,
    rnn_mutants as rnn,
    softmax_mutants as softmax,
    variance_mutants as variance,
)


@dataclass(frozen=True)
class Mutant:
    """One known-wrong version of a graded function.

    Attributes
    ----------
    id : str
        Stable id of the bug, e.g. ``"softmax.no_max_shift"``; shared by sub-variants.
    function : str
        The graded function it is a wrong version of, e.g. ``"softmax"``.
    implementation : Callable
        Same signature and return structure as the ``attn_reference`` function.
    hint : str
        One plain sentence for the student naming the bug.
    variant : str
        Which sub-variant of the bug this is; empty when the bug has only one.
    """

    id: str
    function: str
    implementation: Callable
    hint: str
    variant: str = ""


MUTANTS: tuple[Mutant, ...] = (
    # softmax
    Mutant(
        "softmax.no_max_shift", "softmax", softmax.no_max_shift,
        "Your softmax does not subtract the maximum before exponentiating, so large scores overflow to inf and NaN.",
    ),
    Mutant(
        "softmax.wrong_axis", "softmax", softmax.wrong_axis_first,
        "Your softmax normalises along axis 0 instead of along the axis it is given.",
        variant="axis_0",
    ),
    Mutant(
        "softmax.wrong_axis", "softmax", softmax.wrong_axis_ignored,
        "Your softmax ignores its axis argument and always normalises along the last axis.",
        variant="ignores_axis",
    ),
    Mutant(
        "softmax.not_normalized", "softmax", softmax.not_normalized,
        "Your softmax returns exp(x - max) without dividing by the sum, so the weights do not sum to 1.",
    ),
    Mutant(
        "softmax.no_keepdims", "softmax", softmax.no_keepdims,
        "Your softmax reduces without keepdims=True, so the maximum and the sum broadcast against the wrong axis.",
    ),
    Mutant(
        "softmax.global_normalization", "softmax", softmax.global_normalization,
        "Your softmax divides by the sum over all entries instead of the sum along the given axis.",
    ),
    # causal_mask
    Mutant(
        "causal_mask.upper_triangular", "causal_mask", masks.upper_triangular,
        "Your causal mask is upper-triangular, letting each position see the future instead of the past.",
    ),
    Mutant(
        "causal_mask.excludes_diagonal", "causal_mask", masks.excludes_diagonal,
        "Your causal mask hides the diagonal, but each position must be allowed to attend to itself.",
    ),
    # scaled_dot_product_attention
    Mutant(
        "attention.no_scaling", "scaled_dot_product_attention", attention.no_scaling,
        "Your attention does not divide the scores Q K^T by sqrt(d_k) before the softmax.",
    ),
    Mutant(
        "attention.scale_by_dk", "scaled_dot_product_attention", attention.scale_by_dk,
        "Your attention divides the scores by d_k instead of by sqrt(d_k).",
    ),
    Mutant(
        "attention.scale_by_wrong_dim", "scaled_dot_product_attention", attention.scale_by_d_v,
        "Your attention scales the scores by the square root of d_v (the size of the values) instead of d_k.",
        variant="d_v",
    ),
    Mutant(
        "attention.scale_by_wrong_dim", "scaled_dot_product_attention", attention.scale_by_num_queries,
        "Your attention scales the scores by the square root of the number of queries instead of d_k.",
        variant="num_queries",
    ),
    Mutant(
        "attention.scale_by_wrong_dim", "scaled_dot_product_attention", attention.scale_by_num_keys,
        "Your attention scales the scores by the square root of the number of keys instead of d_k.",
        variant="num_keys",
    ),
    Mutant(
        "attention.scale_by_wrong_dim", "scaled_dot_product_attention", attention.scale_by_second_dim,
        "Your attention takes d_k from Q.shape[1], which is only right for 2-D inputs; use Q.shape[-1].",
        variant="shape_1",
    ),
    Mutant(
        "attention.scale_after_softmax", "scaled_dot_product_attention", attention.scale_after_softmax,
        "Your attention divides by sqrt(d_k) after the softmax instead of scaling the scores before it.",
    ),
    Mutant(
        "attention.mask_inverted", "scaled_dot_product_attention", attention.mask_inverted,
        "Your attention treats True in the mask as blocked, but True means the query may attend to that key.",
    ),
    Mutant(
        "attention.mask_after_softmax", "scaled_dot_product_attention", attention.mask_after_softmax,
        "Your attention zeroes the masked weights after the softmax, so the rows no longer sum to 1; set masked scores to -inf before it.",
    ),
    Mutant(
        "attention.multiplicative_mask", "scaled_dot_product_attention", attention.multiplicative_mask,
        "Your attention multiplies the scores by the mask, which makes masked scores 0 instead of -inf.",
    ),
    Mutant(
        "attention.softmax_over_queries", "scaled_dot_product_attention", attention.softmax_over_queries,
        "Your attention applies the softmax over the queries (axis -2) instead of over the keys (axis -1).",
    ),
    Mutant(
        "attention.no_batch_support", "scaled_dot_product_attention", attention.no_batch_support,
        "Your attention uses K.T, which also reverses the batch axes of batched input; swap only the last two axes.",
    ),
    # dot_product_variance
    Mutant(
        "variance.not_sampled", "dot_product_variance", variance.not_sampled,
        "Your function returns the theoretical variances d_k and 1 instead of measuring them from samples.",
    ),
    Mutant(
        "variance.scaled_by_dk", "dot_product_variance", variance.scaled_by_dk,
        "Your scaled dot products are divided by d_k instead of by sqrt(d_k).",
    ),
    Mutant(
        "variance.unbiased", "dot_product_variance", variance.unbiased_variance,
        "Your variances use ddof=1, but the assignment asks for np.var's default ddof=0.",
    ),
    # RNN alignment scores
    Mutant(
        "additive.missing_tanh", "additive_score", rnn.additive_missing_tanh,
        "Your additive score leaves out the tanh around W_a s + U_a h_j.",
    ),
    Mutant(
        "additive.swapped_weights", "additive_score", rnn.additive_swapped_weights,
        "Your additive score applies W_a to the encoder states and U_a to the decoder state instead of the other way round.",
    ),
    Mutant(
        "additive.no_source_axis", "additive_score", rnn.additive_no_source_axis,
        "Your additive score adds W_a s to U_a h_j without inserting the source axis, so batched decoder states broadcast against the wrong axis.",
    ),
    Mutant(
        "luong.dot_no_batch_support", "dot_score", rnn.dot_no_batch_support,
        "Your dot score uses np.dot(H, s), which only works for a single decoder state, not a batch of them.",
    ),
    Mutant(
        "luong.general_transposed", "general_score", rnn.general_transposed,
        "Your general score uses W_a transposed, computing h_j^T W_a s instead of s^T W_a h_j.",
    ),
    Mutant(
        "luong.concat_order", "concat_score", rnn.concat_order,
        "Your concat score concatenates [h_j; s] instead of [s; h_j].",
    ),
    # attention_context
    Mutant(
        "context.no_softmax", "attention_context", rnn.context_no_softmax,
        "Your context vector weights the encoder states with the raw scores instead of their softmax.",
    ),
    Mutant(
        "context.mask_ignored", "attention_context", rnn.context_mask_ignored,
        "Your context vector ignores the padding mask, so padded positions still get weight.",
    ),
    Mutant(
        "context.softmax_first_axis", "attention_context", rnn.context_softmax_first_axis,
        "Your context vector normalises the scores over axis 0 instead of over the source positions (axis -1).",
    ),
    # split_heads and merge_heads
    Mutant(
        "heads.reshape_without_transpose", "split_heads", heads.split_reshape_without_transpose,
        "Your split_heads reshapes straight to (..., num_heads, n, d_head) without first reshaping to (..., n, num_heads, d_head) and swapping those two axes.",
    ),
    Mutant(
        "heads.interleaved", "split_heads", heads.split_interleaved,
        "Your split_heads gives each head every num_heads-th feature instead of a contiguous block of d_model // num_heads features.",
    ),
    Mutant(
        "heads.merge_mismatch", "merge_heads", heads.merge_without_transpose,
        "Your merge_heads reshapes without first swapping the head and position axes back, so it is not the inverse of split_heads.",
    ),
    # multi_head_attention
    Mutant(
        "mha.scale_by_d_model", "multi_head_attention", heads.mha_scale_by_d_model,
        "Your heads scale their scores by sqrt(d_model) instead of sqrt(d_head) = sqrt(d_model / num_heads).",
    ),
    Mutant(
        "mha.missing_output_projection", "multi_head_attention", heads.mha_missing_output_projection,
        "Your multi-head attention returns the merged heads without multiplying them by W_o.",
    ),
    Mutant(
        "mha.keys_from_queries", "multi_head_attention", heads.mha_keys_from_queries,
        "Your multi-head attention computes the keys and values from X_q instead of X_kv, which is only right for self-attention.",
    ),
    # softmax_backward
    Mutant(
        "softmax_backward.no_outer_product", "softmax_backward", gradients.softmax_backward_no_outer_product,
        "Your softmax backward returns A * dA, keeping only diag(a) of the Jacobian diag(a) - a a^T; subtract the sum of dA * A along the axis from dA first.",
    ),
    Mutant(
        "softmax_backward.wrong_axis", "softmax_backward", gradients.softmax_backward_ignores_axis,
        "Your softmax backward sums dA * A along the last axis whatever axis it is given.",
        variant="ignores_axis",
    ),
    Mutant(
        "softmax_backward.wrong_axis", "softmax_backward", gradients.softmax_backward_axis_0,
        "Your softmax backward sums dA * A along axis 0 instead of along the axis the softmax normalised over.",
        variant="axis_0",
    ),
    Mutant(
        "softmax_backward.no_keepdims", "softmax_backward", gradients.softmax_backward_no_keepdims,
        "Your softmax backward sums dA * A without keepdims=True, so the sums broadcast against the wrong axis.",
    ),
    # scaled_dot_product_attention_backward
    Mutant(
        "attention_backward.missing_scale", "scaled_dot_product_attention_backward", gradients.attention_backward_no_scale_in_dQ,
        "Your dQ is missing the factor 1/sqrt(d_k) that the forward pass applied to the scores.",
        variant="dQ",
    ),
    Mutant(
        "attention_backward.missing_scale", "scaled_dot_product_attention_backward", gradients.attention_backward_no_scale_in_dK,
        "Your dK is missing the factor 1/sqrt(d_k) that the forward pass applied to the scores.",
        variant="dK",
    ),
    Mutant(
        "attention_backward.missing_scale", "scaled_dot_product_attention_backward", gradients.attention_backward_no_scale,
        "Your dQ and dK are both missing the factor 1/sqrt(d_k) that the forward pass applied to the scores.",
        variant="both",
    ),
    Mutant(
        "attention_backward.dk_not_transposed", "scaled_dot_product_attention_backward", gradients.attention_backward_dK_not_transposed,
        "Your dK is dS @ Q, which only fits when L_q == L_k; dK is the transpose of dS times Q, divided by sqrt(d_k).",
    ),
    Mutant(
        "attention_backward.dv_not_transposed", "scaled_dot_product_attention_backward", gradients.attention_backward_dV_not_transposed,
        "Your dV is A @ dZ, which only fits when L_q == L_k; dV is the transpose of A times dZ.",
    ),
    Mutant(
        "attention_backward.mask_ignored", "scaled_dot_product_attention_backward", gradients.attention_backward_mask_ignored,
        "Your backward pass does not zero A where the mask is False, so masked positions (such as queries with no allowed key) still pass gradient.",
    ),
    Mutant(
        "attention_backward.softmax_over_queries", "scaled_dot_product_attention_backward", gradients.attention_backward_softmax_over_queries,
        "Your softmax backward step sums over the queries (axis -2) instead of over the keys (axis -1), the axis the forward softmax normalised over.",
    ),
    Mutant(
        "attention_backward.not_reduced", "scaled_dot_product_attention_backward", gradients.attention_backward_not_reduced,
        "Your gradients keep the broadcast batch shape instead of being summed back to the shape of Q, K and V.",
    ),
    # softmax_gradient_norm
    Mutant(
        "gradient_norm.scale_ignored", "softmax_gradient_norm", gradients.gradient_norm_never_scaled,
        "Your experiment never divides the scores by sqrt(d_k), even when scaled is True.",
        variant="never_scaled",
    ),
    Mutant(
        "gradient_norm.scale_ignored", "softmax_gradient_norm", gradients.gradient_norm_always_scaled,
        "Your experiment divides the scores by sqrt(d_k) even when scaled is False.",
        variant="always_scaled",
    ),
    Mutant(
        "gradient_norm.scaled_by_dk", "softmax_gradient_norm", gradients.gradient_norm_scaled_by_dk,
        "Your experiment divides the scores by d_k instead of by sqrt(d_k).",
    ),
    Mutant(
        "gradient_norm.keys_drawn_first", "softmax_gradient_norm", gradients.gradient_norm_keys_drawn_first,
        "Your experiment draws K before q, but the documented order is q = rng.standard_normal((n_samples, d_k)) first, then K.",
    ),
    Mutant(
        "gradient_norm.no_outer_product", "softmax_gradient_norm", gradients.gradient_norm_no_outer_product,
        "Your experiment takes the norm of diag(a) instead of the whole Jacobian diag(a) - a a^T.",
    ),
    Mutant(
        "gradient_norm.squared", "softmax_gradient_norm", gradients.gradient_norm_squared,
        "Your experiment averages the squared Frobenius norm; take the square root of each sample's sum of squares before the mean.",
    ),
)


def mutants_for(function: str) -> tuple[Mutant, ...]:
    """Every mutant (sub-variants included) of the graded ``function``, in catalog order.

    An unknown name gives an empty tuple: the function simply has no known bugs listed.
    """
    return tuple(m for m in MUTANTS if m.function == function)


def mutant(mutant_id: str) -> Mutant:
    """The mutant with this id; for a bug with sub-variants, the first one listed.

    Raises
    ------
    KeyError
        When no mutant has this id.
    """
    for candidate in MUTANTS:
        if candidate.id == mutant_id:
            return candidate
    raise KeyError(f"no mutant with id {mutant_id!r}")
