"""Replaying the mutant catalog: a known wrong version that gives what the student got names the bug."""

from __future__ import annotations

import math

import numpy as np

from autograder.diagnose.case import Case
from autograder.diagnose.probes.finding import Finding
from autograder.mutants.replay import exception_summary, replay_mutants
from autograder.errors import StudentException
from autograder.judge.compare import Raised, Tolerance, reference_function, run, split
from autograder.inputs import RngSeed

TOL = Tolerance(1e-5, 1e-8)
SDPA = "scaled_dot_product_attention"


def normal(shape, seed=0, scale=1.0):
    return scale * np.random.default_rng(seed).standard_normal(shape)


def case_of(function, args, kwargs=None, *, student, dependencies=None) -> Case:
    """A case whose student outcome is ``student`` (a callable run on the inputs, or a Raised)."""
    kwargs = kwargs or {}
    reference = run(reference_function(function), args, kwargs)
    outcome = student if isinstance(student, Raised) else split(student(*args, **kwargs))
    return Case(function, args, kwargs, TOL, reference, outcome, None, dependencies or {})


def softmax_along(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def student_exception(summary: str) -> Raised:
    return Raised(StudentException(f'Traceback (most recent call last):\n  File "<submission>", line 3, in f\n{summary}\n'))


def test_a_mutant_reproducing_the_student_names_its_bug():
    x = 1e3 + normal((4, 5))

    def no_shift(x, axis=-1):
        with np.errstate(all="ignore"):
            return np.exp(x) / np.sum(np.exp(x), axis=axis, keepdims=True)

    assert replay_mutants(case_of("softmax", (x,), student=no_shift)) == [Finding("softmax.no_max_shift", {})]


def test_a_sub_variant_brings_its_own_facts():
    x = normal((2, 3, 4))
    case = case_of("softmax", (x,), {"axis": 1}, student=lambda x, axis: softmax_along(x, axis=0))
    assert replay_mutants(case) == [Finding("softmax.wrong_axis", {"actual": "axis 0", "expected": "the axis argument"})]


def test_one_finding_per_id_with_the_first_matching_variants_facts():
    Q, K, V = normal((5, 4), 1), normal((6, 4), 2), normal((6, 5), 3)  # d_v == L_q == 5

    def by_sqrt_5(Q, K, V, mask=None):
        A = softmax_along(Q @ K.T / math.sqrt(5))
        return A @ V, A

    assert replay_mutants(case_of(SDPA, (Q, K, V), student=by_sqrt_5)) == [
        Finding("attention.scale_by_wrong_dim", {"dimension": "d_v"})
    ]


def test_a_mutant_that_coincides_with_the_reference_never_matches():
    x = normal((4, 5))  # on the last axis, ignoring the axis argument is right
    assert replay_mutants(case_of("softmax", (x,), student=lambda x: softmax_along(x))) == []


def test_nothing_is_replayed_while_an_error_is_carried_forward():
    upper = lambda n: np.triu(np.ones((n, n), dtype=bool))  # noqa: E731
    assert replay_mutants(case_of("causal_mask", (4,), student=upper)) == [Finding("causal_mask.upper_triangular", {})]
    carried = case_of("causal_mask", (4,), student=upper, dependencies={"softmax": softmax_along})
    assert replay_mutants(carried) == []


def test_a_wrong_result_no_mutant_gives_is_not_named():
    x = normal((4, 5))
    assert replay_mutants(case_of("softmax", (x,), student=lambda x: softmax_along(3 * x))) == []


def test_the_same_exception_as_a_mutant_names_its_bug():
    try:
        np.zeros((3, 8)).reshape(3, 2, 8 / 2)
    except TypeError as error:
        summary = f"TypeError: {error}"
    case = case_of("split_heads", (normal((3, 8)), 2), student=student_exception(summary))
    assert replay_mutants(case) == [Finding("heads.float_division", {})]


def test_another_exception_does_not_match():
    case = case_of("split_heads", (normal((3, 8)), 2), student=student_exception("IndexError: tuple index out of range"))
    assert replay_mutants(case) == []


def test_a_returned_result_does_not_match_a_mutant_that_raises():
    X = normal((3, 8))
    case = case_of("split_heads", (X, 2), student=lambda X, h: np.full((2, 3, 4), np.nan))
    assert replay_mutants(case) == []


def test_a_raised_student_does_not_match_a_mutant_that_returns():
    case = case_of("causal_mask", (4,), student=student_exception("ValueError: bad"))
    assert replay_mutants(case) == []


def test_exception_summary_of_a_student_exception_is_its_last_traceback_line():
    assert exception_summary(student_exception("KeyError: 'x'").error) == "KeyError: 'x'"


def test_exception_summary_of_any_other_exception_is_type_and_message():
    assert exception_summary(ValueError("shapes differ")) == "ValueError: shapes differ"
    assert exception_summary(RuntimeError()) == "RuntimeError:"


def test_every_variant_of_each_id_is_tried_until_one_matches():
    Q, K, V = normal((2, 5, 4), 1), normal((2, 6, 4), 2), normal((2, 6, 3), 3)  # L_k == 6 only

    def by_sqrt_l_k(Q, K, V, mask=None):
        A = softmax_along(Q @ np.swapaxes(K, -1, -2) / math.sqrt(K.shape[-2]))
        return A @ V, A

    assert replay_mutants(case_of(SDPA, (Q, K, V), student=by_sqrt_l_k)) == [
        Finding("attention.scale_by_wrong_dim", {"dimension": "L_k"})
    ]


def test_every_mutant_gets_its_own_fresh_generator_from_a_seed():
    def by_d_k(d_k, n_samples, rng):
        rng = np.random.default_rng(11) if isinstance(rng, RngSeed) else rng
        q, k = rng.standard_normal((n_samples, d_k)), rng.standard_normal((n_samples, d_k))
        dots = (q * k).sum(axis=-1)
        return float(np.var(dots)), float(np.var(dots / d_k))

    case = case_of("dot_product_variance", (9, 300, RngSeed(11)), student=by_d_k)
    assert replay_mutants(case) == [Finding("variance.scaled_by_dk", {})]
