"""Behavioural probes: name a bug from how a function behaves, not from a list of known wrong versions.

Each probe takes a failed :class:`~autograder.diagnose.case.Case` and returns the
:class:`~.finding.Finding` objects it can stand behind. :data:`PROBES` run on every failed
call; :data:`FALLBACK_PROBES` only when nothing more specific was found.
"""

from autograder.diagnose.probes import (arguments, backward, calls, heads, invariance, jacobian_norm, outputs, patterns,
                                        raises, readout, scale, sizes, softmax)

#: Probes run on every failed call, most specific first.
PROBES = (
    outputs.not_float,
    outputs.outputs_swapped,
    softmax.wrong_axis,
    invariance.finite_mask_fill,
    softmax.variants,
    softmax.inf_entries_nan,
    scale.attention_scale,
    softmax.scaled_scores,
    backward.softmax_backward_behaviour,
    backward.attention_backward_behaviour,
    backward.experiment_aggregation,
    jacobian_norm.other_norm,
    jacobian_norm.scale_by_other,
    arguments.integer_mask,
    arguments.integer_inputs,
    invariance.nan_where_masked,
    arguments.mask_probes,
    arguments.mask_without_head_axis,
    arguments.masked_scores_matter,
    invariance.blocked_keys_matter,
    invariance.part_without_mask,
    arguments.weight_probes,
    arguments.vector_probes,
    readout.unbounded_activation,
    readout.nonlinearity_per_part,
    arguments.confused_arguments,
    arguments.rewritten_arguments,
    outputs.scaled_part,
    outputs.axis_moved,
    outputs.one_entry_short,
    outputs.reversed_part,
    outputs.shifted_by_maximum,
    softmax.scores_for_weights,
    outputs.transposed_part,
    outputs.values_confused,
    outputs.averaged_heads,
    heads.split_by_head_size,
    heads.interleaved_heads,
    patterns.causal_mask_pattern,
    patterns.variance_as_std,
    patterns.scaled_divisor,
    calls.own_generator,
    calls.mask_needs_full_shape,
    arguments.expects_transposed_weights,
    raises.rejects_valid_input,
    raises.array_truth_value,
    raises.partial_transpose,
    raises.inplace_product,
    invariance.array_like,
)

#: Probes whose answer is vaguer: run only when the others and the mutant catalog found nothing.
FALLBACK_PROBES = (
    calls.right_on_the_last_axis_only,
    outputs.proportional_weights,
    arguments.mask_arithmetic,
    calls.batch_only,
    softmax.overflow,
    softmax.shifted_beforehand,
    invariance.not_shift_invariant,
    invariance.overflows,
    patterns.heads_arrangement,
    patterns.variance_of_other_draws,
    invariance.batch_shapes_broadcast,
    sizes.mismatched_sizes,
)

__all__ = ["FALLBACK_PROBES", "PROBES"]
