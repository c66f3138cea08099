"""The ``@graded`` contracts: each says truthfully what its reference function returns and calls."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import attn_reference
from attn_reference.contract import Contract, Output, OutputKind, contract_of, graded
from autograder.config import load_course

SEED = 20270308
#: The graded functions, from course.yml; the reference's other exports (tables, the gradient-check tools) carry no contract.
GRADED = tuple(q.function for a in load_course().assignments for q in a.questions)
UNGRADED = tuple(name for name in attn_reference.__all__ if name not in GRADED)


def public_case_inputs(name: str) -> tuple[tuple, dict] | None:
    """The inputs of the first public case of ``name`` in the course's release (``public_cases.py``, or the hidden
    test's worked example), or None."""
    from autograder.build.public_cases import Seed, release_cases

    course = load_course()
    for assignment in course.assignments:
        if name in assignment.functions:
            for case in release_cases(course.layout, assignment):
                if case.function == name:
                    made = tuple(np.random.default_rng(a.value) if isinstance(a, Seed) else a for a in case.args)
                    return made, dict(case.kwargs)
    return None


def sample_inputs(name: str) -> tuple[tuple, dict]:
    """One ordinary call of each graded function, with pairwise different sizes (a function added to the course
    since: its first public case)."""
    normal = np.random.default_rng(SEED).standard_normal
    d_model, heads = 6, 2
    samples = {
        "softmax": ((normal((2, 3)),), {}),
        "softmax_backward": ((attn_reference.softmax(normal((2, 3))), normal((2, 3))), {}),
        "scaled_dot_product_attention_backward": (
            (normal((2, 5, 4)), normal((2, 6, 4)), normal((2, 6, 3)), attn_reference.softmax(normal((2, 5, 6))), normal((2, 5, 3))),
            {},
        ),
        "softmax_gradient_norm": ((4, 5, 20, np.random.default_rng(SEED)), {}),
        "causal_mask": ((4,), {}),
        "scaled_dot_product_attention": ((normal((2, 5, 4)), normal((2, 6, 4)), normal((2, 6, 3))), {}),
        "dot_product_variance": ((4, 50, np.random.default_rng(SEED)), {}),
        "additive_score": ((normal((2, 3)), normal((2, 5, 4)), normal((6, 3)), normal((6, 4)), normal(6)), {}),
        "dot_score": ((normal((2, 3)), normal((2, 5, 3))), {}),
        "general_score": ((normal((2, 3)), normal((2, 5, 4)), normal((3, 4))), {}),
        "concat_score": ((normal((2, 3)), normal((2, 5, 4)), normal((6, 7)), normal(6)), {}),
        "attention_context": ((normal((2, 5)), normal((2, 5, 3))), {}),
        "split_heads": ((normal((2, 5, d_model)), heads), {}),
        "merge_heads": ((normal((2, heads, 5, 3)),), {}),
        "multi_head_attention": (
            (normal((2, 3, d_model)), normal((2, 5, d_model)), *(normal((d_model, d_model)) for _ in range(4)), heads),
            {},
        ),
    }
    return samples[name] if name in samples else public_case_inputs(name)


def positional_parameters(function) -> list[str]:
    return [p.name for p in inspect.signature(function).parameters.values() if p.kind is not p.KEYWORD_ONLY]


def test_every_graded_function_has_a_sample_input():
    assert all(sample_inputs(name) for name in GRADED)


@pytest.mark.parametrize("name", GRADED)
def test_every_graded_function_has_a_contract(name):
    assert isinstance(contract_of(getattr(attn_reference, name)), Contract)


@pytest.mark.parametrize("name", UNGRADED)
def test_the_reference_helpers_that_are_not_questions_have_no_contract(name):
    with pytest.raises(LookupError, match=name):
        contract_of(getattr(attn_reference, name))


def test_contract_of_a_plain_function_raises_lookup_error():
    def helper(x):
        return x

    with pytest.raises(LookupError, match="helper"):
        contract_of(helper)


@pytest.mark.parametrize("name", GRADED)
def test_called_functions_are_keyword_only_parameters_defaulting_to_the_reference(name):
    function = getattr(attn_reference, name)
    parameters = inspect.signature(function).parameters
    for called in contract_of(function).calls:
        assert parameters[called].kind is inspect.Parameter.KEYWORD_ONLY
        assert parameters[called].default is getattr(attn_reference, called)
        assert isinstance(contract_of(getattr(attn_reference, called)), Contract)


@pytest.mark.parametrize("name", GRADED)
def test_every_graded_default_of_a_keyword_only_parameter_is_listed_in_calls(name):
    function = getattr(attn_reference, name)
    graded_defaults = [
        p.name for p in inspect.signature(function).parameters.values()
        if p.kind is p.KEYWORD_ONLY and callable(p.default) and p.default in [getattr(attn_reference, g) for g in GRADED]
    ]
    assert sorted(graded_defaults) == sorted(contract_of(function).calls)


@pytest.mark.parametrize("name", [n for n in GRADED if contract_of(getattr(attn_reference, n)).calls])
def test_the_listed_dependencies_are_really_called_through_their_parameter(name):
    function = getattr(attn_reference, name)
    args, kwargs = sample_inputs(name)
    seen = []

    def spy(called):
        reference = getattr(attn_reference, called)

        def wrapper(*a, **k):
            seen.append(called)
            return reference(*a, **k)

        return wrapper

    plain = function(*args, **kwargs)
    spied = function(*args, **kwargs, **{called: spy(called) for called in contract_of(function).calls})
    assert set(seen) == set(contract_of(function).calls)
    assert isinstance(spied, tuple) == isinstance(plain, tuple)
    for expected, actual in zip(*(r if isinstance(r, tuple) else (r,) for r in (plain, spied))):
        np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-8)


def test_a_replaced_dependency_changes_the_result():
    Q, K, V = sample_inputs("scaled_dot_product_attention")[0]

    def uniform(x, axis=-1):
        return np.ones_like(x) / x.shape[axis]

    Z, A = attn_reference.scaled_dot_product_attention(Q, K, V, softmax=uniform)
    np.testing.assert_allclose(A, np.full((2, 5, 6), 1 / 6))
    np.testing.assert_allclose(Z, np.broadcast_to(V.mean(axis=-2, keepdims=True), (2, 5, 3)))


@pytest.mark.parametrize("name", GRADED)
def test_outputs_and_returns_tuple_match_what_the_function_returns(name):
    function = getattr(attn_reference, name)
    documented = contract_of(function)
    args, kwargs = sample_inputs(name)
    result = function(*args, **kwargs)
    assert isinstance(result, tuple) == documented.returns_tuple
    parts = result if isinstance(result, tuple) else (result,)
    assert len(parts) == len(documented.outputs)
    for part, output in zip(parts, documented.outputs):
        if output.kind is OutputKind.ARRAY:
            assert isinstance(part, np.ndarray)
            assert part.ndim >= len(output.axes)
        else:
            assert isinstance(part, float)


@pytest.mark.parametrize("name", GRADED)
def test_core_ndim_names_real_array_parameters_with_at_least_that_many_axes(name):
    function = getattr(attn_reference, name)
    documented = contract_of(function)
    parameters = positional_parameters(function)
    args, _ = sample_inputs(name)
    given = dict(zip(parameters, args))
    for argument, core in documented.core_ndim:
        assert argument in parameters
        assert core >= 1
        if argument in given:
            assert np.ndim(given[argument]) >= core


@pytest.mark.parametrize("name", GRADED)
def test_the_distribution_names_an_output_and_an_axis_or_a_parameter(name):
    function = getattr(attn_reference, name)
    distribution = contract_of(function).distribution
    if distribution is None:
        return
    assert 0 <= distribution.output < len(contract_of(function).outputs)
    if isinstance(distribution.axis, str):
        assert distribution.axis in positional_parameters(function)
    else:
        assert distribution.axis < 0


@pytest.mark.parametrize("name", [n for n in GRADED if contract_of(getattr(attn_reference, n)).distribution])
def test_the_documented_distribution_sums_to_one(name):
    function = getattr(attn_reference, name)
    distribution = contract_of(function).distribution
    args, kwargs = sample_inputs(name)
    result = function(*args, **kwargs)
    part = (result if isinstance(result, tuple) else (result,))[distribution.output]
    axis = kwargs.get(distribution.axis, -1) if isinstance(distribution.axis, str) else distribution.axis
    np.testing.assert_allclose(part.sum(axis=axis), 1.0)


def _dots(d_k: int, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n, d_k))
    k = rng.standard_normal((n, d_k))
    return np.array([sum(q[i, j] * k[i, j] for j in range(d_k)) for i in range(n)])


@pytest.mark.parametrize(
    "estimator, estimate",
    [
        ("unbiased", lambda x: sum((v - x.mean()) ** 2 for v in x) / (len(x) - 1)),
        ("mean_of_squares", lambda x: sum(v * v for v in x) / len(x)),
    ],
)
def test_accepted_variance_estimators_give_their_own_estimate(estimator, estimate):
    d_k, n = 9, 400
    dots = _dots(d_k, n, SEED)
    var_raw, var_scaled = attn_reference.dot_product_variance(d_k, n, np.random.default_rng(SEED), estimator=estimator)
    assert var_raw == pytest.approx(estimate(dots), rel=1e-9)
    assert var_scaled == pytest.approx(estimate(dots / math.sqrt(d_k)), rel=1e-9)


def test_accepted_variants_of_dot_product_variance_are_listed():
    accepted = [dict(variant) for variant in contract_of(attn_reference.dot_product_variance).accepted]
    assert accepted == [{"estimator": "unbiased"}, {"estimator": "mean_of_squares"}]


@pytest.mark.parametrize("name", [n for n in GRADED if contract_of(getattr(attn_reference, n)).accepted])
def test_accepted_variants_differ_from_the_default_but_stay_valid(name):
    function = getattr(attn_reference, name)
    d_k, n = 9, 4000
    default = function(d_k, n, np.random.default_rng(SEED))
    standard_error = 5 * math.sqrt(2 / n)
    for variant in contract_of(function).accepted:
        result = function(d_k, n, np.random.default_rng(SEED), **dict(variant))
        assert result != default
        assert result[0] / d_k == pytest.approx(1.0, abs=standard_error)
        assert result[1] == pytest.approx(1.0, abs=standard_error)


@pytest.mark.parametrize(
    "axis, ndim, expected",
    [
        (-1, 3, "L_k (axis -1)"),
        (-2, 3, "L_q (axis -2)"),
        (2, 3, "L_k (axis -1)"),
        (1, 3, "L_q (axis -2)"),
        (0, 3, "axis 0"),
        (-3, 3, "axis -3"),
    ],
)
def test_axis_name_names_trailing_axes_and_numbers_the_others(axis, ndim, expected):
    assert Output("A", axes=("L_q", "L_k")).axis_name(axis, ndim) == expected


def test_axis_name_without_axes_is_just_the_number():
    assert Output("the result").axis_name(-1, 2) == "axis -1"


def test_graded_defaults_returns_tuple_to_more_than_one_output():
    @graded(Output("a"))
    def one(x):
        return x

    @graded(Output("a"), Output("b"))
    def two(x):
        return x, x

    @graded(Output("a"), returns_tuple=True)
    def one_in_a_tuple(x):
        return (x,)

    assert not contract_of(one).returns_tuple
    assert contract_of(two).returns_tuple
    assert contract_of(one_in_a_tuple).returns_tuple
    assert contract_of(two).output_names == ("a", "b")


def test_core_ndim_of_reads_the_documented_axes():
    documented = contract_of(attn_reference.scaled_dot_product_attention)
    assert documented.core_ndim_of("Q") == 2
    assert documented.core_ndim_of("mask") == 2
    assert documented.core_ndim_of("nothing") is None


def test_every_question_of_the_course_is_a_graded_function():
    from autograder.config import load_course

    questions = {q.function for a in load_course().assignments for q in a.questions}
    assert questions == set(GRADED)
