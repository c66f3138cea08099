"""What is observed of a failed call whatever its bug: the output's relation to the expected one, and where it fails."""

from __future__ import annotations

import math

import numpy as np

from autograder.diagnose.localise import localisation
from autograder.diagnose.relate import other_shape_relation, relation
from autograder.diagnose.vocabulary import argument_shapes, call_sizes, parse_shape
from attn_reference import scaled_dot_product_attention as reference_attention
from tests.autograder.diagnose.test_diagnosis import SDPA, case_of, normal, qkv, softmax_along


def attention(Q, K, V, mask=None, scale=None):
    """Right attention (swapaxes, a mask by np.where), with the divisor of the scores changeable."""
    scores = Q @ np.swapaxes(K, -1, -2) / (math.sqrt(Q.shape[-1]) if scale is None else scale(Q, K, V))
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax_along(scores)
    return A @ V, A


def test_the_sizes_of_a_call_come_from_the_docstrings_shapes():
    Q, K, V = qkv((2,))
    sizes = call_sizes(SDPA, {"Q": Q, "K": K, "V": V})
    assert sizes == {"L_q": Q.shape[-2], "d_k": Q.shape[-1], "L_k": K.shape[-2], "d_v": V.shape[-1]}
    assert argument_shapes(SDPA)["mask"].mask and not argument_shapes(SDPA)["Q"].mask


def test_a_shape_description_is_read_with_its_batch_axes_and_expressions():
    shape = parse_shape("array_like, shape (..., T, d_s + d_h)")
    assert shape.axes == ("T", None) and shape.batched and not shape.mask
    assert parse_shape("array_like, shape (d_a,)").axes == ("d_a",)
    assert parse_shape("int") is None and parse_shape("array_like, shape (..., n, ...)") is None


def test_a_constant_factor_on_one_part_is_said_with_the_parts_that_are_right():
    def doubled(Q, K, V, mask=None):
        Z, A = attention(Q, K, V)
        return 2.5 * Z, A

    said = relation(case_of(SDPA, qkv(), student=doubled))
    assert said == "Z: it is the expected one times the constant 2.5; A right"


def test_a_constant_that_equals_a_size_by_coincidence_is_said_as_a_number():
    def doubled(Q, K, V, mask=None):  # 2 = sqrt(d_k) here, but not once d_k changes
        Z, A = attention(Q, K, V)
        return 2 * Z, A

    said = relation(case_of(SDPA, qkv(), student=doubled))
    assert said == "Z: it is the expected one times the constant 2; A right"


def test_a_factor_that_follows_a_size_is_named_by_that_size():
    def times_sqrt_dk(Q, K, V, mask=None):
        Z, A = attention(Q, K, V)
        return Z * math.sqrt(Q.shape[-1]), A

    assert "sqrt(d_k) = 2" in relation(case_of(SDPA, qkv(), student=times_sqrt_dk))


def test_weights_with_swapped_axes_are_said_to_be_transposed():
    def square_transposed(Q, K, V, mask=None):
        Z, A = attention(Q, K, V)
        return Z, np.swapaxes(A, -1, -2)

    Q = normal((5, 4), 1)
    said = relation(case_of(SDPA, (Q, normal((5, 4), 2), normal((5, 3), 3)), student=square_transposed))
    assert said.startswith("A: it is the expected one with its last two axes swapped")


def test_a_gradient_not_summed_over_broadcast_axes_is_said_so():
    expected = normal((1, 6, 5), 4)
    broadcast = np.concatenate([expected / 3] * 3)  # (3, 6, 5) that sums back to the expected
    assert "summed over the axes where the input has size 1" in other_shape_relation(broadcast, expected)
    assert other_shape_relation(broadcast + normal((3, 6, 5), 5), expected) is None


def test_noise_relates_to_nothing():
    def noise(Q, K, V, mask=None):
        return normal((5, 3), 7), np.abs(normal((5, 6), 9))

    assert relation(case_of(SDPA, qkv(), student=noise)) is None


def test_a_function_right_on_two_dimensional_inputs_fails_with_batch_axes():
    def dot_T(Q, K, V, mask=None):  # K.T reverses every axis
        A = softmax_along(Q @ K.T.swapaxes(0, -1).swapaxes(-1, -2) if K.ndim > 2 else Q @ K.T)
        A = softmax_along(np.einsum("...qd,k...d->...qk", Q, K) / math.sqrt(Q.shape[-1])) if K.ndim > 2 \
            else softmax_along(Q @ K.T / math.sqrt(Q.shape[-1]))
        return A @ V, A

    said = localisation(case_of(SDPA, qkv((3,)), student=dot_T))
    assert said == "Where it fails: right on the same inputs without batch axes, wrong as soon as batch axes are added."


def test_a_function_right_when_the_sizes_are_equal_fails_when_they_differ():
    def scale_by_lq(Q, K, V, mask=None):
        return attention(Q, K, V, scale=lambda Q, K, V: math.sqrt(Q.shape[-2]))

    said = localisation(case_of(SDPA, qkv(), student=scale_by_lq))
    assert said.startswith("Where it fails: right when the sizes") and "made equal" in said


def test_a_function_right_on_the_full_mask_fails_when_the_mask_broadcasts():
    def full_mask_only(Q, K, V, mask=None):
        Z, A = attention(Q, K, V, mask)
        return (Z, A) if mask is None or mask.shape == A.shape else (Z + 1, A)

    Q, K, V = qkv((2,))
    mask = np.array([True, True, False, True, False, True])  # (L_k,): broadcasts over queries and batch
    said = localisation(case_of(SDPA, (Q, K, V, mask), student=full_mask_only))
    assert "right when the mask has the full shape" in said


def test_a_reference_right_function_is_not_localised_as_failing_anywhere():
    case = case_of(SDPA, qkv((2,)), student=lambda Q, K, V, mask=None: reference_attention(Q, K, V, mask))
    assert localisation(case).startswith("Where it fails: right")  # every variation it tries is right


def test_a_scale_by_a_batch_axis_is_named_by_that_axis():
    from autograder.diagnose.probes import scale

    def by_first_axis(Q, K, V, mask=None):
        return attention(Q, K, V, scale=lambda Q, K, V: math.sqrt(Q.shape[0]))

    found = scale.attention_scale(case_of(SDPA, qkv((7,)), student=by_first_axis))
    assert [(f.id, f.facts.get("dimension")) for f in found] == [("attention.scale_by_wrong_dim", "Q.shape[0]")]


GENERIC_MODULES = ("vocabulary", "localise", "relate", "relate_inputs", "confirm", "probes/scale")


def test_the_generic_diagnosis_modules_name_no_assignment_and_no_argument():
    import ast
    import inspect
    from pathlib import Path

    import attn_reference
    from autograder.config import load_course
    from autograder.judge.compare import reference_function

    course = load_course()
    names = {a.id for a in course.assignments}
    for function in attn_reference.__all__:
        try:
            names |= set(inspect.signature(reference_function(function)).parameters)
        except Exception:
            continue
    import re

    from autograder.diagnose.registry import bugs

    BUGS = bugs()

    names -= {p for b in BUGS for p in re.findall(r"{(\w+)}", b.hint)}  # a hint's placeholder is a fact's name
    root = Path(__file__).resolve().parents[3] / "autograder" / "diagnose"
    for module in GENERIC_MODULES:
        tree = ast.parse((root / f"{module}.py").read_text(encoding="utf-8"))
        literals = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)}
        literals = {text for text in literals if len(text) > 1}  # "f" is a dtype kind, whatever argument it names
        assert not literals & names, f"{module} names {sorted(literals & names)}"


def test_a_function_right_only_when_two_arguments_are_the_same_array_is_localised_so():
    from attn_reference import multi_head_attention

    def keys_from_queries(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
        return multi_head_attention(X_q, X_q, W_q, W_k, W_v, W_o, num_heads, mask)

    d_model, heads = 6, 2
    args = (normal((4, d_model), 1), normal((4, d_model), 2), *(normal((d_model, d_model), 3 + i) for i in range(4)), heads)
    said = localisation(case_of("multi_head_attention", args, student=keys_from_queries))
    assert said == "Where it fails: right when X_kv is the same array as X_q, wrong when they differ."


def test_a_function_that_hangs_when_called_again_is_not_called_again_for_observations():
    from autograder.diagnose.case import Case
    from autograder.errors import CallTimeout
    from autograder.judge.compare import run, split, reference_function
    from tests.autograder.diagnose.test_diagnosis import TOL

    Q, K, V = qkv((2,))
    calls = []

    def hangs(*args, **kwargs):  # what a timed-out call into the sandbox raises
        calls.append(args)
        raise CallTimeout("too slow")

    wrong = split(tuple(2 * part for part in reference_attention(Q, K, V)))
    case = Case(SDPA, (Q, K, V), {}, TOL, run(reference_function(SDPA), (Q, K, V), {}), wrong, hangs)
    assert localisation(case) is None and len(calls) == 1  # one timeout, then no more calls
    honest = case_of(SDPA, (Q, K, V), student=lambda Q, K, V, mask=None: tuple(2 * p for p in reference_attention(Q, K, V)))
    assert localisation(honest) is not None  # the control: a function that answers is localised


def test_without_batch_axes_means_the_very_example_that_was_wrong():
    def wrong_when_the_first_query_is_positive(Q, K, V, mask=None):  # wrong on some examples, batched or not
        Z, A = reference_attention(Q, K, V, mask)
        flip = (np.asarray(Q)[..., :1, :1] > 0)
        return np.where(flip, 2 * Z, Z), A

    Q, K, V = qkv((2,))
    Q[0, 0, 0], Q[1, 0, 0] = -1.0, 1.0  # right on example 0, wrong on example 1
    said = localisation(case_of(SDPA, (Q, K, V), student=wrong_when_the_first_query_is_positive))
    assert said is None or "without batch axes, wrong as soon" not in said


def test_a_result_near_zero_is_not_said_to_be_the_expected_one_times_zero():
    from autograder.diagnose.relate import same_shape_relation

    expected = normal((4, 5), 8)
    assert same_shape_relation(1e-9 * expected, expected, ("L_q", "L_k")) is None
    assert same_shape_relation(-expected, expected, ("L_q", "L_k")) == "it is the expected one times -1 (the opposite sign)"


def test_a_function_wrong_only_without_a_mask_is_localised_to_the_absent_mask():
    def causal_by_default(Q, K, V, mask=None):
        return attention(Q, K, V, np.tril(np.ones((Q.shape[-2], K.shape[-2]), dtype=bool)) if mask is None else mask)

    said = localisation(case_of(SDPA, qkv((2,)), student=causal_by_default))
    assert "right when mask is given with every entry True, wrong when it is None" in said
    Q, K, V = qkv((2,))
    unscaled_ones = localisation(case_of(SDPA, (Q, K, V), student=lambda Q, K, V, mask=None: attention(Q * 2, K, V, mask)))
    assert "every entry True" not in unscaled_ones


def test_a_result_wrong_in_one_slice_only_is_said_to_be_wrong_there_and_noise_is_not():
    from autograder.diagnose.relate import one_slice_wrong
    from autograder.judge.compare import Tolerance

    expected = normal((4, 5, 6), 1)
    first_row = expected.copy()
    first_row[:, 0, :] += 1.0  # a loop that starts at its second step
    assert "[:, 0, :]" in one_slice_wrong(first_row, expected, Tolerance(1e-5, 1e-8))
    one_entry = expected.copy()
    one_entry[2, 3, 4] = 0.0
    assert "[2, 3, 4]" in one_slice_wrong(one_entry, expected, Tolerance(1e-5, 1e-8))
    assert one_slice_wrong(expected + normal((4, 5, 6), 2), expected, Tolerance(1e-5, 1e-8)) is None
    assert one_slice_wrong(expected, expected, Tolerance(1e-5, 1e-8)) is None
