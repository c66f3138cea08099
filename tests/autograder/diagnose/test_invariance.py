"""Probes of changes that leave the expected result as it is (a shift, blocked keys zeroed, NaN at masked positions
cleared), of results that are rearrangements of the expected one (an axis moved, an entry short, heads interleaved or
counted by their size), and of a few measured quantities (a variance's divisor, a Jacobian's norm): each names its bug
on a wrong implementation written here, and is silent on the right one and on an unrelated mistake."""

from __future__ import annotations

import math

import numpy as np

from attn_reference import scaled_dot_product_attention_backward as reference_backward
from autograder.diagnose.probes import (FALLBACK_PROBES, PROBES, arguments, heads, invariance, jacobian_norm, outputs,
                                        patterns, raises, softmax)
from autograder.diagnose.probes.finding import Finding
from autograder.inputs import RngSeed
from tests.autograder.diagnose.test_raises import raised, traceback
from tests.autograder.diagnose.test_probes import (CONTEXT, MHA, SDPA, additive, additive_args, attention,
                                                   case_of, context, context_args, merge_heads, mha, mha_args, normal,
                                                   qkv, right, softmax_along, split_heads, unscaled)

BACKWARD = "scaled_dot_product_attention_backward"


# ------------------------------------------------------------------ shift invariance


def _clipped_context(scores, H, mask=None):
    return context(np.clip(scores, -20, 20), H, mask)


def test_not_shift_invariant_names_a_context_vector_that_clips_its_scores():
    scores, H = context_args()
    case = case_of(CONTEXT, (scores + 60.0, H), student=_clipped_context, recall=True)
    assert invariance.not_shift_invariant(case) == [Finding("call.not_shift_invariant", {"argument": "scores"})]
    assert invariance.not_shift_invariant in FALLBACK_PROBES


def test_not_shift_invariant_silent_where_the_shift_changes_the_expected_result_or_the_student_stays_wrong():
    assert invariance.not_shift_invariant(right(CONTEXT, context_args())) == []
    scaled = case_of(CONTEXT, context_args(), student=lambda s, H, mask=None: context(2 * s, H, mask), recall=True)
    assert invariance.not_shift_invariant(scaled) == []  # wrong on the shifted scores too
    # attention's Q is no score: shifting it changes the expected result, so it is never tried
    assert invariance.not_shift_invariant(case_of(SDPA, qkv(), student=unscaled, recall=True)) == []


# ------------------------------------------------------------------ keys blocked for every query


def _max_before_mask(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q, K, V = (split_heads(X @ W, num_heads) for X, W in ((X_q, W_q), (X_kv, W_k), (X_kv, W_v)))
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # the maximum over blocked keys too
    e = e * np.asarray(mask, dtype=bool)[..., None, :, :]
    A = e / e.sum(axis=-1, keepdims=True)
    return merge_heads(A @ V) @ W_o, A


def _padding_case(student, scale=1.0):
    X_q, X_kv, *weights, h = mha_args()
    X_kv = X_kv.copy()
    keep = np.array([True, True, False, True, False])  # keys 2 and 4 are padding for every query
    X_kv[..., ~keep, :] *= 400.0 * scale  # their scores dwarf the allowed ones
    mask = np.broadcast_to(keep, X_q.shape[:-1] + keep.shape).copy()
    return case_of(MHA, (X_q, X_kv, *weights, h, mask), student=student, recall=True)


def test_blocked_keys_matter_names_a_maximum_taken_before_the_mask():
    found = invariance.blocked_keys_matter(_padding_case(_max_before_mask))
    assert found == [Finding("call.blocked_keys_matter", {"arguments": "X_kv"})]
    assert invariance.blocked_keys_matter in PROBES


def test_blocked_keys_matter_names_it_with_padding_that_differs_per_example():
    X_q, X_kv, *weights, h = mha_args()  # batch of 2
    keep = np.array([[True, True, False, True, True], [True, False, True, True, False]])  # (B, n_kv): no key common
    X_kv = np.where(keep[..., None], X_kv, 400.0 * X_kv)
    case = case_of(MHA, (X_q, X_kv, *weights, h, keep[:, None, :]), student=_max_before_mask, recall=True)
    assert invariance.blocked_keys_matter(case) == [Finding("call.blocked_keys_matter", {"arguments": "X_kv"})]


def test_blocked_keys_matter_silent_on_a_right_layer_and_on_a_bug_the_blocked_keys_do_not_cause():
    assert invariance.blocked_keys_matter(_padding_case(mha)) == []
    unscaled_heads = lambda *a: mha(*a[:7], a[7] if len(a) > 7 else None, divide_by=1.0)  # noqa: E731
    assert invariance.blocked_keys_matter(_padding_case(unscaled_heads)) == []


# ------------------------------------------------------------------ one part computed without the mask


def _masked_backward_inputs():
    Q, K, V = normal((2, 4, 5), "bq"), normal((2, 6, 5), "bk"), normal((2, 6, 3), "bv")
    mask = np.ones((2, 4, 6), dtype=bool)
    mask[:, 1, :] = False  # query 1 has no allowed key
    mask[:, :, 5] = False
    scores = np.where(mask, Q @ np.swapaxes(K, -1, -2) / math.sqrt(5), -1e9)  # a finite fill: query 1 is uniform
    return Q, K, V, softmax_along(scores), normal((2, 4, 3), "bdz"), mask


def test_part_without_mask_names_a_dv_taken_from_the_weights_before_they_are_masked():
    def dv_first(Q, K, V, A, dZ, mask=None):
        dV = np.swapaxes(A, -1, -2) @ dZ
        dQ, dK, _ = reference_backward(Q, K, V, A, dZ, mask)
        return dQ, dK, dV

    case = case_of(BACKWARD, _masked_backward_inputs(), student=dv_first)
    assert invariance.part_without_mask(case) == [Finding("call.part_without_mask", {"part": "dV"})]
    assert invariance.part_without_mask in PROBES


def test_part_without_mask_silent_when_every_part_ignores_the_mask_or_none_does():
    inputs = _masked_backward_inputs()
    ignores = case_of(BACKWARD, inputs, student=lambda Q, K, V, A, dZ, mask=None: reference_backward(Q, K, V, A, dZ))
    assert invariance.part_without_mask(ignores) == []
    assert invariance.part_without_mask(right(BACKWARD, inputs)) == []


# ------------------------------------------------------------------ NaN at masked positions


def _nan_row_inputs():
    Q, K, V, A, dZ, mask = _masked_backward_inputs()
    A = np.where(mask.any(axis=-1, keepdims=True), np.where(mask, A, 0.0), np.nan)  # the -inf forward pass's NaN row
    return Q, K, V, A, dZ, mask


def test_nan_where_masked_names_weights_multiplied_by_the_mask():
    def multiplied(Q, K, V, A, dZ, mask=None):
        return reference_backward(Q, K, V, A * mask, dZ)

    case = case_of(BACKWARD, _nan_row_inputs(), student=multiplied, recall=True)
    assert invariance.nan_where_masked(case) == [Finding("call.mask_multiplied", {"argument": "A"})]
    assert PROBES.index(invariance.nan_where_masked) < PROBES.index(arguments.mask_probes)  # before "mask ignored"


def test_nan_where_masked_silent_on_a_selecting_mask_and_on_inputs_without_nan():
    assert invariance.nan_where_masked(right(BACKWARD, _nan_row_inputs())) == []
    doubled = lambda Q, K, V, A, dZ, mask=None: tuple(2 * g for g in reference_backward(Q, K, V, A, dZ, mask))  # noqa: E731
    assert invariance.nan_where_masked(case_of(BACKWARD, _masked_backward_inputs(), student=doubled, recall=True)) == []


# ------------------------------------------------------------------ overflow


def _hand_written_tanh(x):
    e = np.exp(2 * x)
    return (e - 1) / (e + 1)


def test_overflows_names_a_hand_written_tanh_on_large_states():
    s, H, *weights = additive_args()
    student = lambda s, H, W_a, U_a, v_a: _hand_written_tanh((s @ W_a.T)[..., None, :] + H @ U_a.T) @ v_a  # noqa: E731
    with np.errstate(all="ignore"):
        case = case_of("additive_score", (500 * s, 500 * H, *weights), student=student, recall=True)
        assert invariance.overflows(case) == [Finding("call.overflows", {})]
    assert invariance.overflows in FALLBACK_PROBES


def test_overflows_silent_on_a_finite_wrong_result_and_on_one_still_wrong_when_small():
    s, H, *weights = additive_args()
    wrong = lambda s, H, W_a, U_a, v_a: 2 * additive(s, H, W_a, U_a, v_a)  # noqa: E731
    assert invariance.overflows(case_of("additive_score", (500 * s, 500 * H, *weights), student=wrong, recall=True)) == []
    always_nan = lambda s, H, W_a, U_a, v_a: additive(s, H, W_a, U_a, v_a) * np.nan  # noqa: E731
    assert invariance.overflows(case_of("additive_score", (500 * s, 500 * H, *weights), student=always_nan, recall=True)) == []


# ------------------------------------------------------------------ batch shapes that must broadcast


def _flattened_attention(Q, K, V, mask=None):
    """Merges the batch axes with reshape(-1, n, d): right only when every argument has the same batch shape."""
    batch = Q.shape[:-2]
    Z, A = attention(*(x.reshape(-1, *x.shape[-2:]) for x in (Q, K, V)), mask)
    return Z.reshape(*batch, *Z.shape[-2:]), A.reshape(*batch, *A.shape[-2:])


def test_batch_shapes_broadcast_names_batch_axes_merged_from_one_argument():
    Q, K, V = qkv((3,))
    case = case_of(SDPA, (Q[0], K, V), student=_flattened_attention, recall=True)
    assert invariance.batch_shapes_broadcast(case) == [
        Finding("call.batch_of_one_argument", {"shapes": "Q (5, 4), K (3, 6, 4), V (3, 6, 3)"})]
    assert FALLBACK_PROBES.index(invariance.batch_shapes_broadcast) < len(FALLBACK_PROBES) - 1


def test_batch_shapes_broadcast_silent_with_equal_batch_shapes_and_on_a_bug_of_its_own():
    Q, K, V = qkv((3,))
    assert invariance.batch_shapes_broadcast(case_of(SDPA, (Q, K, V), student=unscaled, recall=True)) == []
    assert invariance.batch_shapes_broadcast(case_of(SDPA, (Q[0], K, V), student=unscaled, recall=True)) == []


# ------------------------------------------------------------------ rearranged results


def test_axis_moved_names_a_softmax_whose_axis_is_never_moved_back():
    x = normal((4, 3, 5), "moved")
    case = case_of("softmax", (x,), {"axis": 0}, student=lambda x, axis=-1: softmax_along(np.moveaxis(x, axis, -1)))
    assert outputs.axis_moved(case) == [Finding("call.axis_moved", {"axis": "0", "position": "-1"})]
    assert PROBES.index(outputs.axis_moved) < PROBES.index(outputs.transposed_part)


def test_axis_moved_silent_on_the_last_axis_and_on_values_that_are_not_the_expected_ones():
    x = normal((4, 3, 5), "moved")
    assert outputs.axis_moved(right("softmax", (x,), {"axis": 0})) == []
    halved = lambda x, axis=-1: np.moveaxis(softmax_along(np.moveaxis(x, axis, -1)), -1, axis) / 2  # noqa: E731
    assert outputs.axis_moved(case_of("softmax", (x,), {"axis": 1}, student=halved)) == []


def _split_one_short(X, h):
    d = X.shape[-1] // h
    return np.stack([X[..., i * d:(i + 1) * d - 1] for i in range(h)], axis=-3)


def test_one_entry_short_names_heads_cut_by_an_inclusive_end():
    X = normal((2, 5, 12), "short")
    found = outputs.one_entry_short(case_of("split_heads", (X, 3), student=_split_one_short))
    assert [(f.id, f.facts["axis"], str(f.facts["end"])) for f in found] == [("call.one_entry_short", "-1", "last")]
    assert outputs.one_entry_short in PROBES


def test_one_entry_short_silent_on_right_heads_and_on_a_shorter_axis_of_other_values():
    X = normal((2, 5, 12), "short")
    assert outputs.one_entry_short(right("split_heads", (X, 3))) == []
    other = lambda X, h: _split_one_short(X, h) + 1.0  # noqa: E731
    assert outputs.one_entry_short(case_of("split_heads", (X, 3), student=other)) == []


def test_one_entry_only_names_general_scores_that_keep_the_first_position():
    s, H, W = normal((4, 6), "first"), normal((4, 5, 7), "first-H"), normal((6, 7), "first-W")
    first_only = lambda s, H, W_a: np.einsum("...i,ij,...tj->...t", s, W_a, H)[..., :1]  # noqa: E731
    found = outputs.one_entry_short(case_of("general_score", (s, H, W), student=first_only))
    assert [(f.id, f.facts["axis"], str(f.facts["end"]), f.facts["size"]) for f in found] == [
        ("call.one_entry_only", "-1", "first", "5")]


def test_one_entry_short_and_only_silent_where_two_entries_make_them_one():
    s, H, W = normal((4, 6), "two"), normal((4, 2, 7), "two-H"), normal((6, 7), "two-W")
    first_only = lambda s, H, W_a: np.einsum("...i,ij,...tj->...t", s, W_a, H)[..., :1]  # noqa: E731
    assert outputs.one_entry_short(case_of("general_score", (s, H, W), student=first_only)) == []


def test_one_entry_short_silent_on_a_context_that_drops_its_padded_positions():
    from tests.autograder.diagnose.test_probes import CONTEXT, context_args  # noqa: PLC0415

    def dropping(scores, H, mask=None):  # boolean indexing: the padded (last) position is left out of alpha
        keep = np.asarray(mask, dtype=bool)
        e = np.exp(scores[keep] - scores[keep].max())
        alpha = e / e.sum()
        return alpha @ H[keep], alpha

    scores, H = context_args()
    scores, H = scores[0], H[0]
    mask = np.ones(scores.shape[-1], dtype=bool)
    mask[-1] = False
    assert outputs.one_entry_short(case_of(CONTEXT, (scores, H, mask), student=dropping)) == []


# ------------------------------------------------------------------ heads


def _by_head_size(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    return mha(X_q, X_kv, W_q, W_k, W_v, W_o, X_q.shape[-1] // num_heads, mask)


def test_split_by_head_size_names_a_layer_split_into_d_head_heads():
    X_q, X_kv, *weights, _ = mha_args()
    case = case_of(MHA, (X_q, X_kv, *weights, 3), student=_by_head_size)  # d_model 6: 3 heads asked, 2 run
    assert heads.split_by_head_size(case) == [Finding("mha.split_by_head_size", {"got": "2", "num_heads": "3"})]
    assert heads.split_by_head_size in PROBES


def test_split_by_head_size_silent_on_the_right_count_and_on_another_wrong_count():
    X_q, X_kv, *weights, _ = mha_args()
    assert heads.split_by_head_size(right(MHA, (X_q, X_kv, *weights, 3))) == []
    one_head = lambda *a: mha(*a[:6], 1, *a[7:])  # noqa: E731  (1 head where 3 are asked: not d_model / 3)
    assert heads.split_by_head_size(case_of(MHA, (X_q, X_kv, *weights, 3), student=one_head)) == []


def _interleaved_output(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    d_model = W_o.shape[0]
    rows = W_o.reshape(d_model // num_heads, num_heads, d_model).transpose(1, 0, 2).reshape(d_model, d_model)
    return mha(X_q, X_kv, W_q, W_k, W_v, rows, num_heads, mask)


def test_interleaved_heads_names_an_output_projection_read_as_d_head_by_heads():
    found = heads.interleaved_heads(case_of(MHA, mha_args(), student=_interleaved_output, recall=True))
    assert [(f.id, f.facts["weight"], str(f.facts["what"])) for f in found] == [("mha.interleaved_heads", "W_o", "row")]
    assert heads.interleaved_heads in PROBES


def test_interleaved_heads_silent_on_a_right_layer_and_on_unscaled_heads():
    assert heads.interleaved_heads(right(MHA, mha_args())) == []
    unscaled_heads = lambda *a: mha(*a, divide_by=1.0)  # noqa: E731
    assert heads.interleaved_heads(case_of(MHA, mha_args(), student=unscaled_heads, recall=True)) == []


# ------------------------------------------------------------------ measured quantities


def _variance(divide):
    def student(d_k, n_samples, rng):
        q = rng.standard_normal((n_samples, d_k))
        k = rng.standard_normal((n_samples, d_k))
        dots = np.sum(q * k, axis=-1)
        return float(np.var(dots)), float(np.var(divide(dots, d_k)))
    return student


def test_scaled_divisor_names_the_precedence_of_d_k_to_the_half():
    case = case_of("dot_product_variance", (9, 400, RngSeed(4)), student=_variance(lambda x, d: x / d ** 1 / 2))
    assert patterns.scaled_divisor(case) == [
        Finding("variance.scaled_by_other", {"divisor": "2·d_k", "value": "18", "d_k": "9"})]
    assert patterns.scaled_divisor in PROBES


def test_scaled_divisor_silent_on_the_right_divisor_a_divisor_it_does_not_know_and_other_draws():
    assert patterns.scaled_divisor(right("dot_product_variance", (9, 400, RngSeed(4)))) == []
    odd = _variance(lambda x, d: x / 1.7)
    assert patterns.scaled_divisor(case_of("dot_product_variance", (9, 400, RngSeed(4)), student=odd)) == []

    def other_draws(d_k, n_samples, rng):
        x = rng.standard_normal((n_samples, 2 * d_k))
        dots = np.sum(x[:, :d_k] * x[:, d_k:], axis=-1)
        return float(np.var(dots)), float(np.var(dots / d_k / 2))
    assert patterns.scaled_divisor(case_of("dot_product_variance", (9, 400, RngSeed(4)), student=other_draws)) == []


def _norm_experiment(size, divisor="d_k"):
    def student(d_k, n_keys, n_samples, rng, scaled=True):
        q = rng.standard_normal((n_samples, d_k))
        K = rng.standard_normal((n_samples, n_keys, d_k))
        scale = math.sqrt(d_k if divisor == "d_k" else n_keys) if scaled else 1.0
        a = softmax_along(np.einsum("skd,sd->sk", K, q) / scale)
        J = a[:, :, None] * np.eye(n_keys) - a[:, :, None] * a[:, None, :]
        return float(size(J))
    return student


def test_other_norm_names_the_mean_of_row_norms_and_the_spectral_norm():
    args = (8, 6, 50, RngSeed(3))
    rows = case_of("softmax_gradient_norm", args, student=_norm_experiment(lambda J: np.linalg.norm(J, axis=-1).mean()))
    assert [str(f.facts["norm"]).split(",")[0] for f in jacobian_norm.other_norm(rows)] == ["the mean of each Jacobian's row norms"]
    spectral = case_of("softmax_gradient_norm", args,
                       student=_norm_experiment(lambda J: np.linalg.norm(J, 2, axis=(-2, -1)).mean()))
    assert [f.id for f in jacobian_norm.other_norm(spectral)] == ["gradient_norm.other_norm"]
    assert jacobian_norm.other_norm in PROBES


def test_other_norm_silent_on_the_frobenius_mean_and_on_a_number_no_norm_gives():
    args = (8, 6, 50, RngSeed(3))
    assert jacobian_norm.other_norm(right("softmax_gradient_norm", args)) == []
    off = _norm_experiment(lambda J: 1.01 * np.sqrt(np.sum(J ** 2, axis=(-2, -1))).mean())
    assert jacobian_norm.other_norm(case_of("softmax_gradient_norm", args, student=off)) == []


# ------------------------------------------------------------------ an in-place product


def test_inplace_product_names_numpys_error_for_a_product_written_into_its_operand():
    error = ("ValueError: matmul: Output operand 0 has a mismatch in its core dimension 1, with gufunc signature "
             "(n?,k),(k,m?)->(n?,m?) (size 4 is different from 3)")  # what `s @= W_a` raises, s (2, 4), W_a (4, 3)
    s, H = normal((2, 4), "ips"), normal((2, 6, 3), "iph")
    case = case_of("general_score", (s, H, normal((4, 3), "ipw")), result=raised(traceback("s @= W_a", error, 27)))
    assert raises.inplace_product(case) == [Finding("call.inplace_product", {"line": "27"})]
    assert raises.inplace_product in PROBES


def test_inplace_product_silent_on_other_errors_and_on_results():
    s, H, W = normal((2, 4), "ips"), normal((2, 6, 3), "iph"), normal((4, 3), "ipw")
    other = traceback("p = W_a @ s", "ValueError: matmul: Input operand 1 has a mismatch in its core dimension 0", 27)
    assert raises.inplace_product(case_of("general_score", (s, H, W), result=raised(other))) == []
    assert raises.inplace_product(right("general_score", (s, H, W))) == []


# ------------------------------------------------------------------ a finite fill at masked positions


def _far_below_zero(student):
    Q, K, V = qkv((2,))
    keep = np.array([True, False, True, True, False, True])  # (L_k,): keys 1 and 4 are padding
    Q = np.concatenate([Q, np.ones((*Q.shape[:-1], 1))], axis=-1)  # a coordinate of 1 meets ...
    K = np.concatenate([K, np.broadcast_to(np.where(keep, -5e4, 0.0)[:, None], (2, 6, 1))], axis=-1)  # ... a pull
    return case_of(SDPA, (Q, K, V, np.broadcast_to(keep, (2, 1, 6)).copy()), student=student, recall=True)


def test_finite_mask_fill_names_masked_scores_set_to_minus_ten_thousand():
    fill = lambda Q, K, V, mask=None: attention(Q, K, V, mask, mask_with=lambda s, m: np.where(m, s, -1e4))  # noqa: E731
    assert invariance.finite_mask_fill(_far_below_zero(fill)) == [Finding("call.finite_mask_fill", {})]
    assert PROBES.index(invariance.finite_mask_fill) < PROBES.index(softmax.variants)  # before a multiplied mask


def test_finite_mask_fill_silent_on_minus_infinity_and_on_a_mask_multiplied_into_the_scores():
    assert invariance.finite_mask_fill(_far_below_zero(attention)) == []
    multiplied = lambda Q, K, V, mask=None: attention(Q, K, V, mask, mask_with=lambda s, m: s * m)  # noqa: E731
    assert invariance.finite_mask_fill(_far_below_zero(multiplied)) == []  # wrong on ordinary scores too


# ------------------------------------------------------------------ lists, a mean, an in-place sum


def test_array_like_names_a_softmax_that_reads_dtype_off_a_list():
    def no_asarray(x, axis=-1):
        e = np.exp(x - x.max(axis=axis, keepdims=True))  # a list has no .max
        return e / e.sum(axis=axis, keepdims=True)

    case = case_of("softmax", (normal((3, 4), "list").tolist(),), student=no_asarray, recall=True)
    assert invariance.array_like(case) == [Finding("call.array_like", {"names": "x", "first": "x"})]
    assert invariance.array_like in PROBES


def test_array_like_silent_on_arrays_on_a_right_function_and_on_one_wrong_on_arrays_too():
    x = normal((3, 4), "list")
    assert invariance.array_like(case_of("softmax", (x,), student=lambda x, axis=-1: 2 * softmax_along(x), recall=True)) == []
    assert invariance.array_like(right("softmax", (x.tolist(),))) == []
    doubled = lambda x, axis=-1: 2 * softmax_along(np.asarray(x))  # noqa: E731
    assert invariance.array_like(case_of("softmax", (x.tolist(),), student=doubled, recall=True)) == []


def test_scaled_part_names_a_context_vector_averaged_instead_of_summed():
    scores, H = context_args()
    mean = lambda scores, H, mask=None: (context(scores, H)[0] / H.shape[-2], context(scores, H)[1])  # noqa: E731
    found = outputs.scaled_part(case_of(CONTEXT, (scores, H), student=mean))
    assert found == [Finding("call.mean_for_sum", {"part": "c", "size": "T = 6"})]


def test_inplace_product_names_an_in_place_sum_that_cannot_grow():
    error = "ValueError: non-broadcastable output operand with shape (3,5) doesn't match the broadcast shape (6,3,5)"
    s, H = normal((6, 4), "ips"), normal((3, 2), "iph")
    args = (s, H, normal((5, 4), "ipw"), normal((5, 2), "ipu"), normal((5,), "ipv"))
    case = case_of("additive_score", args, result=raised(traceback("hidden += (s @ W_a.T)[..., None, :]", error, 121)))
    assert raises.inplace_product(case) == [Finding("call.inplace_product", {"line": "121"})]


# ------------------------------------------------------------------ exactly one batch axis


def _one_batch_axis_split(X, h):
    n, d_model = X.shape[-2:]
    return np.swapaxes(np.reshape(X, (-1, n, h, d_model // h)), -2, -3)  # merges batch axes, adds one to none


def test_batch_only_names_a_split_right_with_exactly_one_batch_axis():
    from autograder.diagnose.probes import calls

    for shape, count in (((2, 3, 5, 6), "2"), ((5, 6), "0")):
        case = case_of("split_heads", (normal(shape, "one axis"), 2), student=_one_batch_axis_split, recall=True)
        assert calls.batch_only(case) == [Finding("call.one_batch_axis_only", {"count": count})]


def test_batch_only_silent_on_a_split_right_with_every_batch_shape():
    from autograder.diagnose.probes import calls

    assert calls.batch_only(right("split_heads", (normal((2, 3, 5, 6), "one axis"), 2))) == []


# ------------------------------------------------------------------ a shift along another axis, a scale by another size


def test_variants_names_a_context_vector_shifted_by_the_maxima_of_the_first_axis():
    def column_maxima(scores, H, mask=None):
        e = np.exp(scores - scores.max(axis=0, keepdims=True))
        alpha = e / e.sum(axis=-1, keepdims=True)
        return np.einsum("...t,...td->...d", alpha, H), alpha

    scores, H = context_args()
    assert softmax.variants(case_of(CONTEXT, (scores, H), student=column_maxima)) == [Finding("call.shift_along_other_axis", {"axis": "-2"})]


def test_scale_by_other_names_scores_divided_by_the_root_of_the_number_of_keys():
    case = case_of("softmax_gradient_norm", (8, 6, 50, RngSeed(3)),
                   student=_norm_experiment(lambda J: np.sqrt(np.sum(J ** 2, axis=(-2, -1))).mean(), divisor="keys"))
    assert jacobian_norm.scale_by_other(case) == [Finding("gradient_norm.scale_by_other", {"divisor": "sqrt(n_keys)"})]
    assert jacobian_norm.scale_by_other in PROBES


def test_scale_by_other_silent_on_the_documented_scale_and_on_the_unscaled_experiment():
    args = (8, 6, 50, RngSeed(3))
    assert jacobian_norm.scale_by_other(right("softmax_gradient_norm", args)) == []
    frobenius = lambda J: np.sqrt(np.sum(J ** 2, axis=(-2, -1))).mean()  # noqa: E731
    wrong_unscaled = case_of("softmax_gradient_norm", args, {"scaled": False},
                             student=_norm_experiment(frobenius, divisor="keys"))
    assert jacobian_norm.scale_by_other(wrong_unscaled) == []  # unscaled: no divisor to read


def test_what_these_probes_name_never_moves_a_score():
    """A student who forges numpy's message or answers the probes' re-calls differently changes a hint at most: none
    of the ids these probes name is a contract diagnosis, whose share of a question differs from a value failure's."""
    from autograder.diagnose.registry import ENGINE_BUGS
    from autograder.scoring import CONTRACT_DIAGNOSES

    named_here = {"call.not_shift_invariant", "call.blocked_keys_matter", "call.part_without_mask", "call.overflows",
                  "call.axis_moved", "call.inplace_product", "call.batch_of_one_argument", "call.one_entry_short", "call.one_entry_only",
                  "call.mask_multiplied", "call.finite_mask_fill", "call.array_like", "call.mean_for_sum",
                  "call.one_batch_axis_only", "call.shift_along_other_axis", "call.reversed_axis",
                  "call.shifted_by_maximum", "call.scores_for_weights", "call.step_skipped", "call.last_axis_only"}
    assert named_here <= {bug.id for bug in ENGINE_BUGS}
    assert not named_here & CONTRACT_DIAGNOSES
