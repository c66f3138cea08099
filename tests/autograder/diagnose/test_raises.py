"""A function that refuses a valid input: named from its own raise/assert line, never from another failure; and the
localisation says which value of an integer argument (its size, its type) the refusal needs."""

from __future__ import annotations

import numpy as np
import pytest

import attn_reference

from autograder.diagnose.localise import counts_to_one, localisation
from autograder.diagnose.variations import counts_to_two
from autograder.inputs import RngSeed
from autograder.diagnose.probes import FALLBACK_PROBES, PROBES, raises, sizes
from autograder.diagnose.probes.finding import Finding
from autograder.diagnose.probes.raises import ERROR_SHOWN, rejects_valid_input
from autograder.engine.results import FAILED, PASSED, Diagnosis, TestResult
from autograder.errors import NotImplementedYet, StudentException
from autograder.judge.compare import Raised
from autograder.scoring import question_fraction
from tests.autograder.diagnose.test_probes import case_of, normal


def traceback(source_line: str, error: str, line: int = 12) -> str:
    """A student traceback as the sandbox reports it: the student's frames only, then the error."""
    return (f'Traceback (most recent call last):\n  File "submission.py", line {line}, in causal_mask\n'
            f"    {source_line}\n{error}")


def raised(message: str, kind=StudentException) -> Raised:
    return Raised(kind(message))


@pytest.mark.parametrize("source_line", ["raise ValueError(f'bad n {n}')", "assert type(n) is int, 'n must be an int'"])
def test_rejects_valid_input_names_a_call_refused_by_the_students_own_raise_or_assert(source_line):
    case = case_of("causal_mask", (np.int64(4),), result=raised(traceback(source_line, "ValueError: bad n 4", 31)))
    found = rejects_valid_input(case)
    assert [f.id for f in found] == ["call.rejects_valid_input"]
    assert found[0].facts == {"line": "31", "error": "ValueError: bad n 4"}
    assert rejects_valid_input in PROBES and sizes.mismatched_sizes in FALLBACK_PROBES  # both run


def test_rejects_valid_input_silent_on_an_error_numpy_raised_on_the_students_line():
    case = case_of("causal_mask", (4,), result=raised(traceback("return np.tril(np.ones((n, n)))[None] @ m",
                                                                "ValueError: matmul: mismatch")))
    assert rejects_valid_input(case) == []


def test_rejects_valid_input_silent_on_an_untouched_stub_and_on_a_returned_result():
    stub = case_of("causal_mask", (4,), result=raised(traceback("raise NotImplementedError", "NotImplementedError"),
                                                      kind=NotImplementedYet))
    assert rejects_valid_input(stub) == []
    assert rejects_valid_input(case_of("causal_mask", (4,), result=np.ones((4, 4), dtype=bool))) == []


def test_the_quoted_error_is_cut_short():
    long = "ValueError: " + "x" * 500
    found = rejects_valid_input(case_of("causal_mask", (4,), result=raised(traceback("raise ValueError(s)", long))))
    assert len(found[0].facts["error"]) == ERROR_SHOWN


def test_a_refusal_costs_what_its_failed_tests_cost_not_the_contract_share():
    refusal = Diagnosis("call.rejects_valid_input", "refused")
    failed = TestResult("test_b", "causal_mask", 1, "d", FAILED, "refused", "exception", diagnoses=(refusal,))
    passed = TestResult("test_a", "causal_mask", 1, "d", PASSED)
    assert question_fraction([passed, failed]) == pytest.approx(0.5)
    dtype = TestResult("test_b", "causal_mask", 1, "d", FAILED, "wrong", "mismatch",
                       diagnoses=(Diagnosis("call.wrong_dtype", "dtype"),))
    assert question_fraction([passed, dtype]) < 0.5  # the control: a broken contract costs its share besides


def test_the_localisation_tells_a_numpy_integer_from_a_python_int():
    def python_ints_only(n):
        if type(n) is not int:
            raise ValueError("n must be an int")
        return np.tril(np.ones((n, n), dtype=bool))

    said = localisation(case_of("causal_mask", (np.int64(5),), student=python_ints_only, recall=True))
    assert said == "Where it fails: right when n is a Python int, wrong when it is the same number as a int64."
    honest = localisation(case_of("causal_mask", (5,), student=lambda n: np.triu(np.ones((n, n), dtype=bool)),
                                  recall=True))
    assert "Python int" not in honest  # the control: a Python int is not varied


def test_setting_a_count_keeps_its_integer_type():
    case = case_of("causal_mask", (np.int64(5),), result=np.ones((5, 5), dtype=bool))
    (_, one), = counts_to_one(case)
    twos = [change for _, change in counts_to_two(case)]
    assert type(one["n"]) is np.int64 and one["n"] == 1
    assert [type(c["n"]) for c in twos] == [np.int64] and twos[0]["n"] == 2
    small = case_of("dot_product_variance", (1, 50, RngSeed(3)), result=(0.0, 0.0))
    assert [c for _, c in counts_to_two(small)] == [{"d_k": 2}, {"n_samples": 2}]  # a size of 1 is tried at 2 too


def _shape_error(source_line: str, error: str):
    return raised(traceback(source_line, error, 40))


def test_mismatched_sizes_names_the_axes_of_a_matrix_product_that_do_not_fit():
    s, H = normal((3, 4), "s"), normal((5, 4), "H")  # s (T_y, d), H (T, d): sizes 3, 4, 5
    error = "ValueError: matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature " \
            "(n?,k),(k,m?)->(n?,m?) (size 5 is different from 4)"
    case = case_of("dot_score", (s, H), result=_shape_error("return s @ H", error))
    found = sizes.mismatched_sizes(case)
    assert [f.id for f in found] == ["call.mismatched_sizes"] and found[0].facts["line"] == "40"
    assert "5 (T)" in str(found[0].facts["sizes"]) and "4 (d)" in str(found[0].facts["sizes"])


def test_mismatched_sizes_names_a_reshape_by_products_of_the_sizes():
    X = normal((3, 5, 2), "X")  # (num_heads, n, d_head)
    case = case_of("merge_heads", (X,), result=_shape_error("return X.reshape(n, h * n)",
                                                            "ValueError: cannot reshape array of size 30 into shape (5,15)"))
    assert str(sizes.mismatched_sizes(case)[0].facts["sizes"]) == "30 entries are reshaped into (5 (n), 15 (num_heads·n))"


def test_mismatched_sizes_silent_on_a_refusal_an_unnamed_size_and_other_errors():
    s, H = normal((3, 4), "s"), normal((5, 4), "H")
    refusal = _shape_error("raise ValueError('no')", "ValueError: shapes (3,4) and (4,5) not aligned")
    unnamed = _shape_error("return s @ H", "ValueError: matmul: mismatch (size 97 is different from 98)")
    other = _shape_error("return s @ H", "ZeroDivisionError: division by zero")
    for result in (refusal, unnamed, other):
        assert sizes.mismatched_sizes(case_of("dot_score", (s, H), result=result)) == []


def test_array_truth_value_names_an_array_used_as_a_condition():
    error = "ValueError: The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()"
    case = case_of("causal_mask", (4,), result=raised(traceback("if mask:", error, 7)))
    assert raises.array_truth_value(case) == [Finding("call.array_truth_value", {"line": "7"})]


def test_array_truth_value_silent_on_other_errors():
    case = case_of("causal_mask", (4,), result=raised(traceback("if n < 1:", "ValueError: bad n")))
    assert raises.array_truth_value(case) == []


def test_rejects_valid_input_silent_on_a_refusal_in_another_graded_function_the_student_calls():
    message = ('Traceback (most recent call last):\n  File "s.py", line 50, in concat_score\n    return additive_score(s, H, W1, W2, v_a)\n'
               '  File "s.py", line 20, in additive_score\n    raise ValueError("W_a does not fit")\nValueError: W_a does not fit')
    case = case_of("concat_score", (normal((3, 2), "s"), normal((3, 5, 4), "H"), normal((6, 6), "W"), normal((6,), "v")),
                   result=raised(message))
    assert rejects_valid_input(case) == []
    own_check = message.replace("in additive_score", "in concat_score")  # the control: its own check is a refusal
    assert [f.id for f in rejects_valid_input(case_of("concat_score", case.args, result=raised(own_check)))] == \
        ["call.rejects_valid_input"]


def _tilde_mask(Q, K, V, mask=None):  # np.where(~mask, -inf, scores): on 0/1 integers ~mask is -2 or -1, never 0
    allowed = None if mask is None else np.logical_not(~np.asarray(mask))
    return attn_reference.scaled_dot_product_attention(Q, K, V, allowed)


def _attention_inputs():
    mask = (np.arange(20).reshape(4, 5) % 3 != 0).astype(np.int64)
    return normal((4, 3), "Q"), normal((5, 3), "K"), normal((5, 2), "V"), mask


def test_integer_mask_names_a_mask_right_only_as_booleans():
    from autograder.diagnose.probes import arguments
    case = case_of("scaled_dot_product_attention", _attention_inputs(), student=_tilde_mask, recall=True)
    assert arguments.integer_mask(case) == [Finding("call.integer_mask", {"dtype": "int64"})]


def test_integer_mask_silent_on_a_boolean_mask_and_on_a_bug_booleans_do_not_fix():
    from autograder.diagnose.probes import arguments
    Q, K, V, mask = _attention_inputs()
    boolean = case_of("scaled_dot_product_attention", (Q, K, V, mask.astype(bool)), recall=True,
                      student=lambda Q, K, V, mask=None: tuple(2 * p for p in _tilde_mask(Q, K, V, mask)))
    assert arguments.integer_mask(boolean) == []
    doubled = case_of("scaled_dot_product_attention", (Q, K, V, mask), recall=True,
                      student=lambda Q, K, V, mask=None: tuple(2 * p for p in _tilde_mask(Q, K, V, mask)))
    assert arguments.integer_mask(doubled) == []


def _in_place_scaled(Q, K, V, mask=None):
    scores = Q @ K.T  # integer Q, K: an integer array
    scores /= np.sqrt(Q.shape[-1])  # in place: numpy refuses to store floats in it
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    A = e / e.sum(axis=-1, keepdims=True)
    return A @ V, A


def _integer_qkv():
    return tuple(np.round(3 * normal(shape, name)).astype(np.int64) for shape, name in (((4, 3), "Q"), ((5, 3), "K"), ((5, 2), "V")))


def test_integer_inputs_names_a_function_right_only_on_the_same_values_as_floats():
    from autograder.diagnose.probes import arguments
    case = case_of("scaled_dot_product_attention", _integer_qkv(), student=_in_place_scaled, recall=True)
    assert arguments.integer_inputs(case) == [Finding("call.integer_input", {"arguments": "Q, K, V"})]
    truncating = case_of("softmax", (np.arange(6).reshape(2, 3),), recall=True,
                         student=lambda x, axis=-1: np.asarray(np.exp(x) / np.exp(x).sum(axis, keepdims=True)).astype(np.asarray(x).dtype))
    assert arguments.integer_inputs(truncating) == [Finding("call.integer_input", {"arguments": "x"})]
    assert arguments.integer_inputs in PROBES


def test_integer_inputs_silent_on_float_inputs_on_right_values_in_integers_and_on_a_bug_floats_do_not_fix():
    from autograder.diagnose.probes import arguments
    Q, K, V = _integer_qkv()
    floats = case_of("scaled_dot_product_attention", (Q * 1.0, K * 1.0, V * 1.0), recall=True,
                     student=lambda Q, K, V, mask=None: tuple(2 * p for p in _in_place_scaled(Q, K, V)))
    assert arguments.integer_inputs(floats) == []
    doubled = case_of("scaled_dot_product_attention", (Q, K, V), recall=True,
                      student=lambda Q, K, V, mask=None: tuple(2 * p for p in _in_place_scaled(Q * 1.0, K * 1.0, V * 1.0)))
    assert arguments.integer_inputs(doubled) == []
    s, H = np.array([[1, 2], [0, 1]]), np.array([[[1, 0], [2, 1], [0, 3]], [[1, 1], [0, 2], [1, 0]]])
    kept_integer = case_of("dot_score", (s, H), recall=True, student=lambda s, H: np.einsum("bd,btd->bt", s, H))
    assert arguments.integer_inputs(kept_integer) == []  # right values, integer dtype: not_float's to name


def test_the_localisation_tells_a_list_from_an_array():
    def arrays_only(X, num_heads):
        if not isinstance(X, np.ndarray):
            raise ValueError("X must be an array")
        return attn_reference.split_heads(X, num_heads)

    X = normal((5, 6), "X").tolist()
    said = localisation(case_of("split_heads", (X, 2), student=arrays_only, recall=True))
    assert said == "Where it fails: right when X is a numpy array, wrong when it is a list."
    honest = localisation(case_of("split_heads", (np.asarray(X), 2), student=lambda X, h: np.asarray(X)[None],
                                  recall=True))
    assert "numpy array" not in honest  # the control: an array argument is not varied


def test_the_localisation_tells_when_two_counts_must_be_equal():
    def scaled_by_n_keys(d_k, n_keys, n_samples, rng, scaled=True):  # sqrt(n_keys) where sqrt(d_k) belongs
        generator = np.random.default_rng(rng.seed) if isinstance(rng, RngSeed) else rng
        q = generator.standard_normal((n_samples, d_k))
        K = generator.standard_normal((n_samples, n_keys, d_k))
        A = attn_reference.softmax(np.einsum("sd,skd->sk", q, K) / np.sqrt(n_keys))
        J = A[:, :, None] * np.eye(n_keys) - A[:, :, None] * A[:, None, :]
        return float(np.mean(np.sqrt(np.sum(J ** 2, axis=(-2, -1)))))

    said = localisation(case_of("softmax_gradient_norm", (7, 4, 50, RngSeed(3)), student=scaled_by_n_keys, recall=True))
    assert "right when n_keys = d_k" in said, said


def test_partial_transpose_names_numpys_error_for_a_pytorch_style_transpose():
    tb = traceback("scores = Q @ K.transpose(-2, -1)", "ValueError: axes don't match array", 40)
    case = case_of("scaled_dot_product_attention", (normal((4, 3), "Q"), normal((5, 3), "K"), normal((5, 2), "V")),
                   result=raised(tb))
    assert raises.partial_transpose(case) == [Finding("call.partial_transpose", {"line": "40"})]
    assert raises.partial_transpose in PROBES


def test_partial_transpose_silent_on_other_errors_and_results():
    args = (normal((4, 3), "Q"), normal((5, 3), "K"), normal((5, 2), "V"))
    other = traceback("scores = Q @ K", "ValueError: matmul: Input operand 1 has a mismatch in its core dimension 0", 40)
    assert raises.partial_transpose(case_of("scaled_dot_product_attention", args, result=raised(other))) == []
    assert raises.partial_transpose(case_of("scaled_dot_product_attention", args,
                                            result=attn_reference.scaled_dot_product_attention(*args))) == []
