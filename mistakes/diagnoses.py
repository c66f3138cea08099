"""The hints of this course's bugs, and which graded functions each bug id's prefix belongs to.

Course content read by the engine (:mod:`autograder.mistakes`): the engine keeps the bugs of any call
(``call.*``, :mod:`autograder.diagnose.registry`); the mutants (the other modules here), the behavioural probes
and the call properties name bugs by these ids. A hint is one sentence to the student that says what to change;
``{placeholders}`` are filled with the facts the grader measured. Each hint is an entry of the message catalog
(marked ``N_``), so the feedback says it in the student's language.

A bug id is ``<prefix>.<what>``; a prefix not listed in :data:`PREFIXES` is the name of the one function it
belongs to (``sliding_window_mask.off_by_one`` is a bug of ``sliding_window_mask``), so a new question needs no
entry here.
"""

from autograder.diagnose.registry import Bug
from autograder.i18n import N_

#: The graded functions each id prefix that is not a function's own name belongs to.
PREFIXES: dict[str, tuple[str, ...]] = {
    "softmax": ("softmax",),
    "causal_mask": ("causal_mask",),
    "attention": ("scaled_dot_product_attention",),
    "variance": ("dot_product_variance",),
    "additive": ("additive_score",),
    "luong": ("dot_score", "general_score", "concat_score"),
    "context": ("attention_context",),
    "heads": ("split_heads", "merge_heads"),
    "mha": ("multi_head_attention",),
    "softmax_backward": ("softmax_backward",),
    "attention_backward": ("scaled_dot_product_attention_backward",),
    "gradient_norm": ("softmax_gradient_norm",),
}

BUGS: tuple[Bug, ...] = (
    # softmax
    Bug("softmax.no_max_shift", N_("Your softmax does not subtract the maximum before exponentiating, so large scores overflow to inf and NaN.")),
    Bug("softmax.inf_nan", N_("Your softmax turns a slice holding -inf into NaN, though it is right once each -inf is a very negative finite score: it shifts by something other than the slice's maximum (the minimum or the mean is -inf, and -inf - (-inf) is NaN); subtract np.max(x, axis=axis, keepdims=True).")),
    Bug("softmax.wrong_axis", N_("Your softmax normalises along {actual} instead of along {expected}, the axis it is given.")),
    Bug("softmax.not_normalized", N_("Your softmax does not divide by the sum of the exponentials along the axis, so the weights do not sum to 1.")),
    Bug("softmax.no_keepdims", N_("Your softmax is right on a single row but wrong on a batch of rows: reduce with keepdims=True so the maximum and the sum broadcast against their own row.")),
    Bug("softmax.global_normalization", N_("Your softmax divides by the sum over all entries instead of the sum along the given axis.")),
    Bug("softmax.scaled_scores", N_("Your softmax multiplies the scores by {factor} before exponentiating; softmax(x) uses the scores as they are.")),
    Bug("softmax.max_not_per_slice", N_("Your softmax subtracts one maximum for the whole array instead of each slice's own maximum, so slices far below it underflow to 0/0; use np.max(x, axis=axis, keepdims=True).")),
    # causal_mask
    Bug("causal_mask.upper_triangular", N_("Your causal mask is upper-triangular, letting each position see the future instead of the past.")),
    Bug("causal_mask.excludes_diagonal", N_("Your causal mask hides the diagonal, but each position must be allowed to attend to itself.")),
    Bug("causal_mask.inverted", N_("Your causal mask is True where attention is forbidden; True must mean the query may attend to that key.")),
    Bug("causal_mask.shifted_diagonal", N_("Your causal mask lets query i see the keys {boundary} instead of j <= i: its boundary is shifted off the diagonal (an index counted from 1, or a k= offset in np.tril).")),
    Bug("causal_mask.not_boolean", N_("Your causal mask has the right pattern but is not a boolean array; return True/False values (e.g. with <= or np.tril(...).astype(bool)).")),
    Bug("causal_mask.not_an_array", N_("Your causal mask is a Python list; return a numpy boolean array.")),
    # scaled_dot_product_attention
    Bug("attention.no_scaling", N_("Your attention does not divide the scores Q K^T by sqrt(d_k) before the softmax.")),
    Bug("attention.scale_by_dk", N_("Your attention divides the scores by d_k instead of by sqrt(d_k).")),
    Bug("attention.scale_by_wrong_dim", N_("Your attention divides the scores by the square root of {dimension} instead of sqrt(d_k), the size of the queries and keys (Q.shape[-1]).")),
    Bug("attention.hard_coded_scale", N_("Your attention divides the scores by the constant {scale}, which is sqrt(d_k) only when d_k = {d_k_it_fits}; compute it from Q.shape[-1].")),
    Bug("attention.wrong_scale", N_("Your attention divides the scores by {scale} instead of sqrt(d_k) = {expected} (here d_k = {d_k}).")),
    Bug("attention.scale_after_softmax", N_("Your attention divides by sqrt(d_k) after the softmax instead of scaling the scores before it.")),
    Bug("attention.mask_inverted", N_("Your attention treats True in the mask as blocked (PyTorch's key_padding_mask convention), but here True means the query may attend to that key.")),
    Bug("attention.mask_ignored", N_("Your attention ignores the mask: positions where the mask is False/0 must get weight exactly 0.")),
    Bug("attention.mask_after_softmax", N_("Your attention zeroes the masked weights after the softmax, so the rows no longer sum to 1; set masked scores to -inf before it.")),
    Bug("attention.multiplicative_mask", N_("Your attention multiplies the scores by the mask, which makes masked scores 0 instead of -inf.")),
    Bug("attention.mask_transposed", N_("Your attention applies the mask transposed: mask[i, j] is about query i and key j.")),
    Bug("attention.wrong_axis", N_("Your attention applies the softmax along {actual} instead of over the keys, {expected}.")),
    Bug("attention.not_normalized", N_("Your attention weights do not sum to 1 over the keys: divide the exponentials by their sum along the last axis.")),
    Bug("attention.no_batch_support", N_("Your attention is right for one example but wrong on batched input: transpose only the last two axes (np.swapaxes(K, -1, -2), not K.T) and let every operation work on the trailing axes.")),
    Bug("attention.no_max_shift", N_("Your attention overflows on large scores: subtract each row's maximum score before exponentiating.")),
    Bug("attention.transposed_weights", N_("Your attention returns A transposed: row i of A must hold query i's weights over the keys.")),
    Bug("attention.values_confused", N_("Your attention multiplies the weights by {used} where the values V belong: Z = A @ V.")),
    Bug("attention.mask_nan", N_("Your attention turns masked scores into NaN (0 * -inf is NaN, so an additive mask built as (1 - mask) * -inf breaks every row); use np.where(mask, scores, -np.inf).")),
    Bug("attention.mask_not_broadcast", N_("Your attention handles a mask only when it has exactly the shape of the scores; use np.where(mask, scores, -np.inf), which broadcasts a (L_q, L_k) or (B, 1, L_k) mask.")),
    # dot_product_variance
    Bug("variance.not_sampled", N_("Your function returns the theoretical variances d_k and 1 instead of measuring them from samples.")),
    Bug("variance.scaled_by_dk", N_("Your scaled dot products are divided by d_k instead of by sqrt(d_k).")),
    Bug("variance.own_generator", N_("Your function draws from its own random numbers instead of the rng it is given, so the same rng does not give the same result; draw with rng.standard_normal.")),
    Bug("variance.draw_order", N_("Your variances have the right size but are not computed from the documented draws: first q = rng.standard_normal((n_samples, d_k)), then k of the same shape.")),
    Bug("variance.raw_variance_off", N_("Your var_scaled is var_raw / d_k as it should be, but var_raw is {ratio} times d_k: the dot products you measure do not have variance d_k; check that q and k are rng.standard_normal((n_samples, d_k)) draws and that each dot product sums all d_k coordinates, np.sum(q * k, axis=-1).")),
    Bug("variance.scaled_variance_by_sqrt", N_("Your var_scaled divides the variance by sqrt(d_k); it is the variance of the scaled dot products, np.var(dots / sqrt(d_k)), which is the variance divided by d_k.")),
    Bug("variance.all_pairs", N_("Your function takes the dot product of every q with every k (q @ k.T); the experiment pairs q_i with k_i only: np.sum(q * k, axis=-1).")),
    Bug("variance.wrong_sum_axis", N_("Your dot products sum over the samples instead of over the d_k coordinates; sum q * k along the last axis, giving one dot product per sample.")),
    Bug("variance.std_not_var", N_("Your function returns standard deviations; the experiment asks for variances (np.var).")),
    # additive_score
    Bug("additive.missing_tanh", N_("Your additive score leaves out the tanh around W_a s + U_a h_j.")),
    Bug("additive.swapped_weights", N_("Your additive score applies W_a to the encoder states and U_a to the decoder state instead of the other way round.")),
    Bug("additive.no_source_axis", N_("Your additive score adds W_a s to U_a h_j without inserting the source axis, so batched decoder states broadcast against the wrong axis.")),
    Bug("additive.weight_transposed", N_("Your additive score uses {weight} transposed; this assignment writes W_a s for a column vector s, which is s @ W_a.T for a row of s.")),
    Bug("additive.ignores_v_a", N_("Your additive score sums the tanh features instead of taking their dot product with v_a.")),
    Bug("additive.no_batch_support", N_("Your additive score is right for one decoder state but wrong on batched input: let every operation work on the trailing axes.")),
    # Luong scores
    Bug("luong.no_batch_support", N_("Your {function} is right for one decoder state but wrong on batched input: a batched s must meet only the h_j of its own sequence, so give it a source axis (s[..., None, :]) or use @ with the state as a trailing axis, not np.dot, np.tile or a plain transpose.")),
    Bug("luong.general_transposed", N_("Your general score uses W_a transposed, computing h_j^T W_a s instead of s^T W_a h_j.")),
    Bug("luong.concat_order", N_("Your concat score concatenates [h_j; s] instead of [s; h_j].")),
    Bug("luong.concat_split", N_("Your concat score splits W_a after d_h columns; its first d_s columns multiply s and the last d_h multiply h_j (W_a[:, :d_s], W_a[:, d_s:]).")),
    Bug("luong.sum_wrong_axis", N_("Your dot score sums the products over the source positions instead of over the features; sum over the last axis (one score per position).")),
    Bug("luong.weight_transposed", N_("Your {function} uses {weight} transposed; this assignment writes W_a s for a column vector s, which is s @ W_a.T for a row of s.")),
    Bug("luong.ignores_v_a", N_("Your concat score sums the tanh features instead of taking their dot product with v_a.")),
    Bug("luong.scaled_output", N_("Your {function} multiplies the scores by {factor}; these scores are not scaled.")),
    Bug("additive.scaled_output", N_("Your additive score multiplies the scores by {factor}; these scores are not scaled.")),
    Bug("additive.tanh_outside", N_("Your additive score applies the tanh after the dot product with v_a; it belongs inside: v_a . tanh(W_a s + U_a h_j).")),
    # attention_context
    Bug("context.no_softmax", N_("Your context vector weights the encoder states with the raw scores instead of their softmax.")),
    Bug("context.mask_ignored", N_("Your context vector ignores the padding mask, so padded positions still get weight.")),
    Bug("context.mask_inverted", N_("Your context vector treats True in the mask as padding, but True marks the positions the decoder may attend to.")),
    Bug("context.mask_after_softmax", N_("Your context vector zeroes the padded weights after the softmax, so they no longer sum to 1; set padded scores to -inf before it.")),
    Bug("context.wrong_axis", N_("Your context vector normalises the scores along {actual} instead of over the source positions, {expected}.")),
    Bug("context.not_normalized", N_("Your attention weights alpha do not sum to 1: divide the exponentials by their sum over the source positions.")),
    Bug("context.no_max_shift", N_("Your context vector overflows on large scores: subtract the largest score before exponentiating.")),
    Bug("context.no_batch_support", N_("Your context vector is right for one decoder step but wrong on batched input: keep every operation on the trailing axes (alpha[..., None, :] @ H).")),
    Bug("context.scaled_scores", N_("Your context vector multiplies the scores by {factor} before the softmax; use the scores as they are.")),
    Bug("context.multiplicative_mask", N_("Your context vector multiplies the scores by the mask, which makes padded scores 0 instead of -inf, so padded positions keep some weight.")),
    Bug("context.mask_not_broadcast", N_("Your context vector handles a mask only when it has exactly the shape of the scores; use np.where(mask, scores, -np.inf), which broadcasts a (T,) mask over the batch.")),
    Bug("context.inf_scores_nan", N_("Your context vector turns a row holding -inf scores into NaN even without a mask: a shift other than the row's maximum (a mean or a minimum of -inf) gives -inf - (-inf) = NaN; subtract np.max(scores, axis=-1, keepdims=True) after masking.")),
    Bug("context.masked_scores_used", N_("Your context vector changes with the scores at padded positions, which must not matter (it is right once they are set to 0): mask first, scores = np.where(mask, scores, -np.inf), then take the maximum and the softmax.")),
    Bug("context.mask_nan", N_("Your context vector turns padded scores into NaN (0 * -inf is NaN); use np.where(mask, scores, -np.inf).")),
    # split_heads and merge_heads
    Bug("heads.reshape_without_transpose", N_("Your split_heads reshapes straight to (..., num_heads, n, d_head) without first reshaping to (..., n, num_heads, d_head) and swapping those two axes.")),
    Bug("heads.interleaved", N_("Your split_heads gives each head every num_heads-th feature instead of a contiguous block of d_model // num_heads features.")),
    Bug("heads.merge_interleaved", N_("Your merge_heads interleaves the heads' features (feature i of every head, then feature i + 1) instead of putting each head's block of d_head features side by side.")),
    Bug("heads.merge_mismatch", N_("Your merge_heads reshapes without first swapping the head and position axes back, so it is not the inverse of split_heads.")),
    Bug("heads.axes_order", N_("Your {function} has the right numbers in the wrong arrangement{shapes}; check which axes each reshape and transpose moves.")),
    Bug("heads.no_batch_support", N_("Your {function} is right for one sequence but wrong on batched input: index the axes from the end (X.shape[-2:], -3) so leading batch axes pass through.")),
    Bug("heads.float_division", N_("Your split_heads computes d_head with / (a float), which reshape rejects; use integer division, d_model // num_heads.")),
    # multi_head_attention
    Bug("mha.scale_by_d_model", N_("Your heads scale their scores by sqrt(d_model) instead of sqrt(d_head) = sqrt(d_model / num_heads).")),
    Bug("mha.no_scaling", N_("Your heads do not divide their scores by sqrt(d_head) before the softmax.")),
    Bug("mha.scale_by_wrong_dim", N_("Your heads divide their scores by the square root of {dimension} instead of sqrt(d_head) = sqrt(d_model / num_heads).")),
    Bug("mha.hard_coded_scale", N_("Your heads divide their scores by the constant {scale}, which is sqrt(d_head) only when d_head = {d_k_it_fits}; compute it from the shapes.")),
    Bug("mha.wrong_scale", N_("Your heads divide their scores by {scale} instead of sqrt(d_head) = {expected} (here d_head = {d_k}).")),
    Bug("mha.missing_output_projection", N_("Your multi-head attention returns the merged heads without multiplying them by W_o.")),
    Bug("mha.missing_projection", N_("Your multi-head attention leaves out the projection {weight}.")),
    Bug("mha.keys_from_queries", N_("Your multi-head attention computes the keys and values from X_q instead of X_kv, which is only right for self-attention.")),
    Bug("mha.weight_transposed", N_("Your multi-head attention uses {weight} transposed (X @ W.T is PyTorch's nn.Linear convention); this assignment applies every weight as X @ W.")),
    Bug("mha.weights_swapped", N_("Your multi-head attention uses {used} where {expected} belongs.")),
    Bug("mha.mask_ignored", N_("Your multi-head attention ignores the mask in some or all heads; apply it to the scores of every head.")),
    Bug("mha.mask_inverted", N_("Your multi-head attention treats True in the mask as blocked, but True means the query may attend to that key.")),
    Bug("mha.wrong_axis", N_("Your heads apply the softmax along {actual} instead of over the keys, {expected}.")),
    Bug("mha.no_max_shift", N_("Your multi-head attention overflows on large scores: subtract each row's maximum score before exponentiating.")),
    # softmax_backward
    Bug("softmax_backward.no_outer_product", N_("Your softmax backward returns A * dA, keeping only diag(a) of the Jacobian diag(a) - a a^T; subtract the sum of dA * A along the axis from dA first.")),
    Bug("softmax_backward.wrong_axis", N_("Your softmax backward sums dA * A along {actual} instead of along {expected}, the axis the softmax normalised over.")),
    Bug("softmax_backward.no_keepdims", N_("Your softmax backward sums dA * A without keepdims=True, so the sums broadcast against the wrong axis.")),
    Bug("softmax_backward.diagonal_only", N_("Your softmax backward keeps only the diagonal of the Jacobian, A * (1 - A) * dA: each dS_i also gets -A_i * A_j * dA_j from every other j, so dS = A * (dA - sum(dA * A)) along the axis.")),
    Bug("softmax_backward.mean_not_sum", N_("Your softmax backward subtracts the mean of dA * A along the axis; it is the sum: dS = A * (dA - np.sum(dA * A, axis=axis, keepdims=True)).")),
    Bug("softmax_backward.sum_over_all", N_("Your softmax backward sums dA * A over the whole array instead of along the axis, so every slice subtracts the other slices' sums too; pass axis=axis, keepdims=True.")),
    Bug("softmax_backward.not_normalized", N_("Your softmax backward is the right one times {factor}; it is A * (dA - sum(dA * A)), with no extra factor.")),
    # scaled_dot_product_attention_backward
    Bug("attention_backward.missing_scale", N_("Your {gradients} is missing the factor 1/sqrt(d_k) that the forward pass applied to the scores.")),
    Bug("attention_backward.dk_not_transposed", N_("Your dK is dS @ Q, which only fits when L_q == L_k; dK is the transpose of dS times Q, divided by sqrt(d_k).")),
    Bug("attention_backward.dv_not_transposed", N_("Your dV is A @ dZ, which only fits when L_q == L_k; dV is the transpose of A times dZ.")),
    Bug("attention_backward.mask_ignored", N_("Your backward pass does not zero A where the mask is False, so masked positions (such as queries with no allowed key) still pass gradient.")),
    Bug("attention_backward.wrong_axis", N_("Your softmax backward step sums over the queries (axis -2) instead of over the keys (axis -1), the axis the forward softmax normalised over.")),
    Bug("attention_backward.scaled_twice", N_("Your {gradients} is the right one divided by sqrt(d_k) once more: the factor 1/sqrt(d_k) belongs once, either in dS or in the products with K and Q.")),
    Bug("attention_backward.gradient_transposed", N_("Your {gradient} holds the right values transposed: a gradient has the shape of its input ({gradient} like the array it is the gradient of), so swap its last two axes back.")),
    Bug("attention_backward.no_batch_support", N_("Your backward pass is right for one example but wrong on batched input: transpose only the last two axes (np.swapaxes(x, -1, -2), not x.T) and let every product work on the trailing axes.")),
    Bug("attention_backward.not_reduced", N_("Your gradients keep the broadcast batch shape instead of being summed back to the shape of Q, K and V.")),
    # softmax_gradient_norm
    Bug("gradient_norm.scale_ignored", N_("Your experiment ignores its scaled argument: {what}.")),
    Bug("gradient_norm.scaled_by_dk", N_("Your experiment divides the scores by d_k instead of by sqrt(d_k).")),
    Bug("gradient_norm.keys_drawn_first", N_("Your experiment draws K before q, but the documented order is q = rng.standard_normal((n_samples, d_k)) first, then K.")),
    Bug("gradient_norm.no_outer_product", N_("Your experiment takes the norm of diag(a) instead of the whole Jacobian diag(a) - a a^T.")),
    Bug("gradient_norm.aggregation", N_("Your experiment is right for one sample but combines several wrongly: take each sample's Frobenius norm, np.sqrt(np.sum(J ** 2, axis=(-2, -1))), then their mean.")),
    Bug("gradient_norm.squared", N_("Your experiment averages the squared Frobenius norm; take the square root of each sample's sum of squares before the mean.")),
    Bug("gradient_norm.own_generator", N_("Your experiment draws from its own random numbers instead of the rng it is given, so the same rng does not give the same result; draw with rng.standard_normal.")),
    Bug("mha.no_batch_support", N_("Your multi-head attention is right for one sequence but wrong on batched input: split, transpose and merge on the trailing axes only.")),
    Bug("mha.multiplicative_mask", N_("Your multi-head attention multiplies the scores by the mask, which makes masked scores 0 instead of -inf.")),
    Bug("mha.mask_after_softmax", N_("Your multi-head attention zeroes the masked weights after the softmax, so the rows no longer sum to 1; set masked scores to -inf before it.")),
    Bug("mha.mask_nan", N_("Your multi-head attention turns masked scores into NaN (0 * -inf is NaN, so an additive mask built as (1 - mask) * -inf breaks every row); use np.where(mask, scores, -np.inf).")),
    Bug("mha.mask_not_broadcast", N_("Your multi-head attention handles a mask only when it has the full (..., n_q, n_kv) shape; a (n_kv,) or (B, 1, n_kv) mask must broadcast too (np.where(mask, scores, -np.inf) on scores with the head axis added to the mask).")),
    Bug("mha.mask_head_axis", N_("Your multi-head attention applies a batched mask without a head axis, so its batch axis lines up with the heads; insert one with mask[..., None, :, :].")),
    Bug("mha.averaged_heads", N_("Your multi-head attention returns the heads' weights averaged into one (..., n_q, n_kv) array; return every head's weights, shape (..., num_heads, n_q, n_kv).")),
    Bug("mha.not_normalized", N_("Your heads' weights do not sum to 1 over the keys: divide the exponentials by their sum along the last axis.")),
)
