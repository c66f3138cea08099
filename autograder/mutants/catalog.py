"""The catalog of known-wrong versions ("mutants") of the graded functions.

When a submission's result is wrong, the grader runs every mutant of that function on the
same inputs; a mutant whose output matches the student's names the likely bug. Bugs are
named by the ids of :mod:`autograder.diagnose.registry`, which also holds their hints. A
bug that shows up in several ways is listed once per way: those sub-variants share the
``id`` (what the bug is) and differ in ``variant`` (how it shows). The behavioural probes
of :mod:`autograder.diagnose.probes` name bugs without a mutant; the catalog keeps the
wrong versions the hidden tests must be able to catch (the test-power gate).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

import numpy as np

import attn_reference

from autograder.diagnose.phrases import AXIS_ARGUMENT, LAST_AXIS, axis, named_axis
from autograder.diagnose.registry import bug
from autograder.i18n import Message, msg
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
        Id of the bug in :mod:`autograder.diagnose.registry`, e.g. ``"softmax.no_max_shift"``;
        shared by sub-variants.
    function : str
        The graded function it is a wrong version of, e.g. ``"softmax"``.
    implementation : Callable
        Same signature and return structure as the ``attn_reference`` function.
    variant : str
        Which sub-variant of the bug this is; empty when the bug has only one.
    facts : tuple of (str, str or Message)
        Values for the placeholders of the bug's hint (names and sizes as text, phrases as catalog messages).
    """

    id: str
    function: str
    implementation: Callable
    variant: str = ""
    facts: tuple[tuple[str, str | Message], ...] = ()

    @property
    def hint(self) -> Message:
        """The registry's hint for this bug, its placeholders filled with this variant's facts."""
        return bug(self.id).say(function=self.function, **dict(self.facts))


SDPA = "scaled_dot_product_attention"
MHA = "multi_head_attention"
CONTEXT = "attention_context"
BACKWARD = "scaled_dot_product_attention_backward"
NORM = "softmax_gradient_norm"

MUTANTS: tuple[Mutant, ...] = (
    Mutant("softmax.no_max_shift", "softmax", softmax.no_max_shift),
    Mutant("softmax.wrong_axis", "softmax", softmax.wrong_axis_first, "axis_0",
           (("actual", axis(0)), ("expected", AXIS_ARGUMENT))),
    Mutant("softmax.wrong_axis", "softmax", softmax.wrong_axis_ignored, "ignores_axis",
           (("actual", LAST_AXIS), ("expected", AXIS_ARGUMENT))),
    Mutant("softmax.not_normalized", "softmax", softmax.not_normalized),
    Mutant("softmax.no_keepdims", "softmax", softmax.no_keepdims),
    Mutant("softmax.global_normalization", "softmax", softmax.global_normalization),
    Mutant("causal_mask.upper_triangular", "causal_mask", masks.upper_triangular),
    Mutant("causal_mask.excludes_diagonal", "causal_mask", masks.excludes_diagonal),
    Mutant("attention.no_scaling", SDPA, attention.no_scaling),
    Mutant("attention.scale_by_dk", SDPA, attention.scale_by_dk),
    Mutant("attention.scale_by_wrong_dim", SDPA, attention.scale_by_d_v, "d_v", (("dimension", "d_v"),)),
    Mutant("attention.scale_by_wrong_dim", SDPA, attention.scale_by_num_queries, "num_queries", (("dimension", "L_q"),)),
    Mutant("attention.scale_by_wrong_dim", SDPA, attention.scale_by_num_keys, "num_keys", (("dimension", "L_k"),)),
    Mutant("attention.scale_by_wrong_dim", SDPA, attention.scale_by_second_dim, "shape_1", (("dimension", "Q.shape[1]"),)),
    Mutant("attention.scale_after_softmax", SDPA, attention.scale_after_softmax),
    Mutant("attention.mask_inverted", SDPA, attention.mask_inverted),
    Mutant("attention.mask_after_softmax", SDPA, attention.mask_after_softmax),
    Mutant("attention.multiplicative_mask", SDPA, attention.multiplicative_mask),
    Mutant("attention.wrong_axis", SDPA, attention.softmax_over_queries, "queries",
           (("actual", named_axis("L_q", -2)), ("expected", named_axis("L_k", -1)))),
    Mutant("attention.no_batch_support", SDPA, attention.no_batch_support),
    Mutant("variance.not_sampled", "dot_product_variance", variance.not_sampled),
    Mutant("variance.scaled_by_dk", "dot_product_variance", variance.scaled_by_dk),
    Mutant("variance.scaled_variance_by_sqrt", "dot_product_variance", variance.variance_divided_by_sqrt),
    Mutant("variance.all_pairs", "dot_product_variance", variance.all_pairs),
    Mutant("variance.wrong_sum_axis", "dot_product_variance", variance.summed_over_samples),
    Mutant("additive.missing_tanh", "additive_score", rnn.additive_missing_tanh),
    Mutant("additive.swapped_weights", "additive_score", rnn.additive_swapped_weights),
    Mutant("additive.no_source_axis", "additive_score", rnn.additive_no_source_axis),
    Mutant("additive.tanh_outside", "additive_score", rnn.additive_tanh_outside),
    Mutant("luong.no_batch_support", "dot_score", rnn.dot_no_batch_support),
    Mutant("luong.general_transposed", "general_score", rnn.general_transposed),
    Mutant("luong.concat_order", "concat_score", rnn.concat_order),
    Mutant("luong.concat_split", "concat_score", rnn.concat_split_at_d_h),
    Mutant("luong.sum_wrong_axis", "dot_score", rnn.dot_sum_over_positions),
    Mutant("context.no_softmax", CONTEXT, rnn.context_no_softmax),
    Mutant("context.mask_ignored", CONTEXT, rnn.context_mask_ignored),
    Mutant("context.wrong_axis", CONTEXT, rnn.context_softmax_first_axis, "first",
           (("actual", axis(0)), ("expected", named_axis("T", -1)))),
    Mutant("heads.reshape_without_transpose", "split_heads", heads.split_reshape_without_transpose),
    Mutant("heads.interleaved", "split_heads", heads.split_interleaved),
    Mutant("heads.float_division", "split_heads", heads.split_float_division),
    Mutant("heads.merge_mismatch", "merge_heads", heads.merge_without_transpose),
    Mutant("heads.merge_interleaved", "merge_heads", heads.merge_interleaved),
    Mutant("mha.scale_by_d_model", MHA, heads.mha_scale_by_d_model),
    Mutant("mha.missing_output_projection", MHA, heads.mha_missing_output_projection),
    Mutant("mha.keys_from_queries", MHA, heads.mha_keys_from_queries),
    Mutant("softmax_backward.no_outer_product", "softmax_backward", gradients.softmax_backward_no_outer_product),
    Mutant("softmax_backward.wrong_axis", "softmax_backward", gradients.softmax_backward_ignores_axis, "ignores_axis",
           (("actual", LAST_AXIS), ("expected", AXIS_ARGUMENT))),
    Mutant("softmax_backward.wrong_axis", "softmax_backward", gradients.softmax_backward_axis_0, "axis_0",
           (("actual", axis(0)), ("expected", AXIS_ARGUMENT))),
    Mutant("softmax_backward.no_keepdims", "softmax_backward", gradients.softmax_backward_no_keepdims),
    Mutant("attention_backward.missing_scale", BACKWARD, gradients.attention_backward_no_scale_in_dQ, "dQ", (("gradients", "dQ"),)),
    Mutant("attention_backward.missing_scale", BACKWARD, gradients.attention_backward_no_scale_in_dK, "dK", (("gradients", "dK"),)),
    Mutant("attention_backward.missing_scale", BACKWARD, gradients.attention_backward_no_scale, "both",
           (("gradients", msg("{first} and {second}", first="dQ", second="dK")),)),
    Mutant("attention_backward.dk_not_transposed", BACKWARD, gradients.attention_backward_dK_not_transposed),
    Mutant("attention_backward.dv_not_transposed", BACKWARD, gradients.attention_backward_dV_not_transposed),
    Mutant("attention_backward.mask_ignored", BACKWARD, gradients.attention_backward_mask_ignored),
    Mutant("attention_backward.wrong_axis", BACKWARD, gradients.attention_backward_softmax_over_queries),
    Mutant("attention_backward.not_reduced", BACKWARD, gradients.attention_backward_not_reduced),
    Mutant("gradient_norm.scale_ignored", NORM, gradients.gradient_norm_never_scaled, "never_scaled",
           (("what", msg("it never divides the scores by sqrt(d_k), even when scaled is True")),)),
    Mutant("gradient_norm.scale_ignored", NORM, gradients.gradient_norm_always_scaled, "always_scaled",
           (("what", msg("it divides the scores by sqrt(d_k) even when scaled is False")),)),
    Mutant("gradient_norm.scaled_by_dk", NORM, gradients.gradient_norm_scaled_by_dk),
    Mutant("gradient_norm.keys_drawn_first", NORM, gradients.gradient_norm_keys_drawn_first),
    Mutant("gradient_norm.no_outer_product", NORM, gradients.gradient_norm_no_outer_product),
    Mutant("gradient_norm.squared", NORM, gradients.gradient_norm_squared),
)


#: The mistake every graded function has from the start, before its author lists its own.
RETURNS_ZEROS = "call.returns_zeros"


def _zeros_like(result):
    return tuple(np.zeros_like(part) for part in result) if isinstance(result, tuple) else np.zeros_like(result)


@functools.lru_cache(maxsize=None)
def generic_mutants(function: str) -> tuple[Mutant, ...]:
    """The mistakes any graded function can have, which its hidden tests must catch from the first day (none for a
    name the reference lacks): zeros whatever the input."""
    reference = getattr(attn_reference, function, None)
    if not callable(reference):
        return ()

    def returns_zeros(*args, **kwargs):
        return _zeros_like(reference(*args, **kwargs))

    return (Mutant(RETURNS_ZEROS, function, returns_zeros),)


def own_mutants(function: str) -> tuple[Mutant, ...]:
    """The catalog's own mutants of ``function`` (sub-variants included), in catalog order."""
    return tuple(m for m in MUTANTS if m.function == function)


def mutants_for(function: str) -> tuple[Mutant, ...]:
    """Every mutant (sub-variants included) of the graded ``function`` that names a bug when replayed.

    The generic mistakes are not among them: a result of zeros also matches the right answer of some
    degenerate inputs, so they only test the hidden suite (the test-power gate), never name a bug.
    An unknown name gives an empty tuple.
    """
    return own_mutants(function)


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
