"""Behavioural probes: name a bug from how a function behaves, not from a list of known wrong versions.

Each probe takes a failed :class:`~autograder.diagnose.case.Case` and returns the
:class:`~.finding.Finding` objects it can stand behind. :data:`PROBES` run on every failed
call; :data:`FALLBACK_PROBES` only when nothing more specific was found.
"""

from autograder.diagnose.probes import arguments, backward, calls, outputs, patterns, raises, readout, scale, sizes, softmax

#: Probes run on every failed call, most specific first.
PROBES = (
    outputs.not_float,
    outputs.outputs_swapped,
    softmax.wrong_axis,
    softmax.variants,
    softmax.inf_entries_nan,
    scale.attention_scale,
    softmax.scaled_scores,
    backward.softmax_backward_behaviour,
    backward.attention_backward_behaviour,
    backward.experiment_aggregation,
    arguments.integer_mask,
    arguments.integer_inputs,
    arguments.mask_probes,
    arguments.mask_without_head_axis,
    arguments.masked_scores_matter,
    arguments.weight_probes,
    arguments.vector_probes,
    readout.unbounded_activation,
    readout.nonlinearity_per_part,
    arguments.confused_arguments,
    arguments.rewritten_arguments,
    outputs.scaled_part,
    outputs.transposed_part,
    outputs.values_confused,
    outputs.averaged_heads,
    patterns.causal_mask_pattern,
    patterns.variance_as_std,
    calls.own_generator,
    calls.mask_needs_full_shape,
    arguments.expects_transposed_weights,
    raises.rejects_valid_input,
    raises.array_truth_value,
    raises.partial_transpose,
)

#: Probes whose answer is vaguer: run only when the others and the mutant catalog found nothing.
FALLBACK_PROBES = (
    calls.right_on_the_last_axis_only,
    outputs.proportional_weights,
    arguments.mask_arithmetic,
    calls.batch_only,
    softmax.overflow,
    softmax.shifted_beforehand,
    patterns.heads_arrangement,
    patterns.variance_of_other_draws,
    sizes.mismatched_sizes,
)

__all__ = ["FALLBACK_PROBES", "PROBES"]
