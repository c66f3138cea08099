"""The mutant catalog: well-formed entries, each a real and recognisable bug.

:func:`distinguishing_inputs` holds, per graded function, input sets on which every
mutant of that function differs from the reference (on at least one set) and the
mutants differ from each other (on every set); ``test_compare`` reuses them.
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import attn_reference
from autograder.sandbox.call import CallOutcome
from autograder.config import load_course
from autograder.diagnose.registry import bug
from autograder.errors import StudentException
from autograder.judge.compare import Tolerance
from autograder.grade.expect import judge
from autograder.inputs import RngSeed, materialize
from autograder.mutants import Mutant, all_mutants, mutant, mutants_for
from autograder.mutants.catalog import RETURNS_ZEROS, generic_mutants
from tests.attn_reference.test_contract import sample_inputs

#: The course's own mutants (its mistakes/ folder).
MUTANTS = all_mutants()
TOL = Tolerance(rtol=1e-5, atol=1e-8)
SEED = 20270308
#: Scores this large overflow exp() unless the maximum is subtracted first.
OVERFLOWING_OFFSET = 1e3

#: Every graded function of the course, from course.yml.
GRADED_FUNCTIONS = tuple(q.function for a in load_course().assignments for q in a.questions)
#: Five queries, six keys; every row allows and blocks some key, every key is allowed somewhere.
ATTENTION_MASK = np.array(
    [
        [1, 0, 1, 1, 0, 1],
        [0, 1, 1, 0, 1, 0],
        [1, 1, 0, 1, 0, 0],
        [0, 0, 1, 1, 1, 1],
        [1, 0, 0, 1, 1, 0],
    ],
    dtype=bool,
)
#: Two sequences of five source positions, the second padded after three.
PADDING_MASK = np.array([[1, 1, 0, 1, 1], [1, 1, 1, 0, 0]], dtype=bool)


def distinguishing_inputs() -> dict[str, list[tuple[str, tuple, dict]]]:
    """Per graded function, labelled ``(label, args, kwargs)`` input sets.

    Sizes are pairwise different (d_k=4, d_v=3, L_q=5, L_k=6, batch 2) so that a wrong
    dimension cannot coincide with the right one.
    """
    rng = np.random.default_rng(SEED)
    normal = rng.standard_normal
    d_model, num_heads = 8, 2
    weights = tuple(normal((d_model, d_model)) for _ in range(4))  # W_q, W_k, W_v, W_o
    return {
        "softmax": [
            ("3-D, axis=1", (2.0 * normal((2, 3, 5)),), {"axis": 1}),
            ("square, overflowing", (OVERFLOWING_OFFSET + 3.0 * normal((4, 4)),), {}),
        ],
        "causal_mask": [("n=4", (4,), {})],
        "scaled_dot_product_attention": [
            ("batched, bool mask", (normal((2, 5, 4)), normal((2, 6, 4)), normal((2, 6, 3))), {"mask": ATTENTION_MASK}),
            ("2-D, 0/1 mask", (normal((5, 4)), normal((6, 4)), normal((6, 3)), ATTENTION_MASK.astype(np.int64)), {}),
        ],
        "dot_product_variance": [("d_k=16", (16, 2000, RngSeed(SEED)), {})],
        "additive_score": [
            ("batched, d_s == d_h", (normal((2, 3)), normal((2, 4, 3)), normal((5, 3)), normal((5, 3)), normal(5)), {}),
            ("unbatched, d_s != d_h", (normal(3), normal((4, 2)), normal((5, 3)), normal((5, 2)), normal(5)), {}),
        ],
        "dot_score": [("batched", (normal((2, 3)), normal((2, 4, 3))), {})],
        "general_score": [("batched, square W_a", (normal((2, 3)), normal((2, 4, 3)), normal((3, 3))), {})],
        "concat_score": [("batched, d_s != d_h", (normal((2, 3)), normal((2, 4, 2)), normal((5, 5)), normal(5)), {})],
        "attention_context": [("batched, padded", (normal((2, 5)), normal((2, 5, 3))), {"mask": PADDING_MASK})],
        "split_heads": [("batched", (normal((2, 3, d_model)), num_heads), {})],
        "merge_heads": [("batched", (normal((2, num_heads, 3, 4)),), {})],
        "multi_head_attention": [
            ("cross-attention, mask", (normal((2, 3, d_model)), normal((2, 5, d_model)), *weights, num_heads),
             {"mask": ATTENTION_MASK[:3, :5]}),
            ("same lengths, no mask", (normal((2, 3, d_model)), normal((2, 3, d_model)), *weights, num_heads), {}),
        ],
        "softmax_backward": [
            ("3-D, axis=1", (attn_reference.softmax(normal((2, 5, 3)), axis=1), normal((2, 5, 3))), {"axis": 1}),
            ("square rows", (attn_reference.softmax(2.0 * normal((4, 4))), normal((4, 4))), {}),
        ],
        "scaled_dot_product_attention_backward": [("square scores, broadcast Q, padding", _backward_inputs(normal), {"mask": PADDED_SQUARE_MASK})],
        "softmax_gradient_norm": [
            ("d_k=16, scaled", (16, 5, 300, RngSeed(SEED)), {"scaled": True}),
            ("d_k=16, unscaled", (16, 5, 300, RngSeed(SEED)), {"scaled": False}),
        ],
    }


def diagnose(function: str, args: tuple, kwargs: dict, produced, tol: Tolerance, implementation=None) -> tuple:
    """The diagnoses judge gives a call that produced ``produced`` (a result or a StudentException).

    ``implementation`` is what produced it: the probes may call it again, as they call a student's function.
    """
    from autograder.engine.subject import Subject
    from tests.autograder.support import InProcessSubmission

    if isinstance(produced, StudentException):
        called = produced
    elif isinstance(produced, tuple):
        called = CallOutcome(tuple(np.asarray(part) for part in produced))
    else:
        called = CallOutcome(np.asarray(produced))
    subject = Subject(InProcessSubmission({function: implementation})) if implementation is not None else None
    return judge(subject, tol, function, args, kwargs, called).diagnoses


#: Five queries, five keys (square, so a missing transpose gives values, not an error); the
#: last query of the second sequence has no allowed key.
PADDED_SQUARE_MASK = np.ones((2, 5, 5), dtype=bool)
PADDED_SQUARE_MASK[1, :, 3:] = False
PADDED_SQUARE_MASK[1, 4, :] = False


def _backward_inputs(normal) -> tuple:
    """Q (2, 5, 4) against unbatched K (5, 4), V (5, 3); A from a forward pass that filled masked
    scores with -1e9 (the query without keys gets uniform weights); dZ (2, 5, 3)."""
    Q, K, V = normal((2, 5, 4)), normal((5, 4)), normal((5, 3))
    A = attn_reference.softmax(np.where(PADDED_SQUARE_MASK, Q @ K.T / 2.0, -1e9))  # (2, 5, 5), d_k = 4
    return Q, K, V, A, normal((2, 5, 3))


def outcome(implementation, args: tuple, kwargs: dict):
    """What a call returns on fresh inputs, or a StudentException standing for its error."""
    try:
        with np.errstate(all="ignore"):
            return implementation(*materialize(args), **materialize(kwargs))
    except Exception as error:
        return StudentException(f"{type(error).__name__}: {error}")


def same(a, b) -> bool:
    """Both raised, or equal structure, shapes and values (NaN equal to NaN)."""
    if isinstance(a, StudentException) or isinstance(b, StudentException):
        return isinstance(a, StudentException) and isinstance(b, StudentException)
    a_parts = a if isinstance(a, tuple) else (a,)
    b_parts = b if isinstance(b, tuple) else (b,)
    return (isinstance(a, tuple), len(a_parts)) == (isinstance(b, tuple), len(b_parts)) and all(
        np.shape(x) == np.shape(y) and np.allclose(x, y, rtol=TOL.rtol, atol=TOL.atol, equal_nan=True)
        for x, y in zip(a_parts, b_parts)
    )


def cases() -> list:
    """Every (function, args, kwargs, mutant) the mutant is distinguishable on, as pytest params."""
    params = []
    for function, input_sets in distinguishing_inputs().items():
        for label, args, kwargs in input_sets:
            expected = outcome(getattr(attn_reference, function), args, kwargs)
            for candidate in mutants_for(function):
                if not same(outcome(candidate.implementation, args, kwargs), expected):
                    case_id = f"{_key(candidate)}-{label}"
                    params.append(pytest.param(function, args, kwargs, candidate, id=case_id))
    return params


def _key(m: Mutant) -> str:
    return f"{m.id}[{m.variant}]"


def test_catalog_entries_are_unique_and_well_formed():
    keys = [_key(m) for m in MUTANTS]
    assert len(keys) == len(set(keys))
    for m in MUTANTS:
        assert re.fullmatch(r"[a-z_]+\.[a-z_0-9]+", m.id), m.id
        assert m.function in GRADED_FUNCTIONS, m.function
        assert callable(m.implementation)


def test_every_graded_function_has_mutants_and_every_mutant_a_graded_function():
    assert all(generic_mutants(function) for function in GRADED_FUNCTIONS)
    assert {m.function for m in MUTANTS} <= set(GRADED_FUNCTIONS)


@pytest.mark.parametrize("function", GRADED_FUNCTIONS)
def test_the_generic_mistake_of_every_function_returns_zeros_of_the_reference_shape(function):
    (generic,) = [m for m in generic_mutants(function) if m.id == RETURNS_ZEROS]
    args, kwargs = sample_inputs(function)
    expected, got = getattr(attn_reference, function)(*args, **kwargs), generic.implementation(*args, **kwargs)
    for want, have in zip(expected if isinstance(expected, tuple) else (expected,), got if isinstance(got, tuple) else (got,)):
        assert np.shape(have) == np.shape(want) and not np.any(have)


def test_a_name_the_reference_lacks_has_no_mutants():
    assert mutants_for("no_such_function") == () and generic_mutants("no_such_function") == ()


@pytest.mark.parametrize("candidate", MUTANTS, ids=_key)
def test_mutant_has_the_reference_signature(candidate):
    reference = inspect.signature(getattr(attn_reference, candidate.function))
    actual = inspect.signature(candidate.implementation)
    documented = [p for p in reference.parameters.values() if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    assert [(p.name, p.default) for p in actual.parameters.values()] == [(p.name, p.default) for p in documented]


@pytest.mark.parametrize("candidate", MUTANTS, ids=_key)
def test_every_mutant_names_a_registered_bug_of_its_own_function(candidate):
    assert bug(candidate.id).belongs_to(candidate.function)
    hint = candidate.hint
    assert hint.startswith("Your ") and hint.endswith(".") and "{" not in hint, hint


def test_lookups():
    assert mutant("softmax.no_max_shift").function == "softmax"
    variants = [m for m in MUTANTS if m.id == "attention.scale_by_wrong_dim"]
    assert len(variants) > 1 and mutant("attention.scale_by_wrong_dim") is variants[0]
    assert all(m.function == "softmax" for m in mutants_for("softmax"))
    assert mutants_for("no_such_function") == ()
    with pytest.raises(KeyError, match="no_such"):
        mutant("softmax.no_such")


@pytest.mark.parametrize("candidate", MUTANTS, ids=_key)
def test_every_mutant_is_wrong_on_some_distinguishing_input(candidate):
    input_sets = distinguishing_inputs()[candidate.function]
    reference = getattr(attn_reference, candidate.function)
    assert any(
        not same(outcome(candidate.implementation, args, kwargs), outcome(reference, args, kwargs))
        for _, args, kwargs in input_sets
    )


@pytest.mark.parametrize(("function", "args", "kwargs", "candidate"), cases())
def test_diagnose_names_exactly_the_mutant_that_produced_the_output(function, args, kwargs, candidate):
    produced = outcome(candidate.implementation, args, kwargs)
    assert [d.id for d in diagnose(function, args, kwargs, produced, TOL, candidate.implementation)] == [candidate.id]


@pytest.mark.parametrize("function", GRADED_FUNCTIONS)
def test_diagnose_of_the_reference_output_is_empty(function):
    inputs = distinguishing_inputs().get(function) or [("the first public case", *sample_inputs(function))]
    for _, args, kwargs in inputs:
        produced = outcome(getattr(attn_reference, function), args, kwargs)
        assert diagnose(function, args, kwargs, produced, TOL) == ()


def test_no_max_shift_overflows_only_on_large_scores():
    small, large = (args for _, args, _ in distinguishing_inputs()["softmax"])
    assert np.isfinite(outcome(mutant("softmax.no_max_shift").implementation, small, {})).all()
    assert not np.isfinite(outcome(mutant("softmax.no_max_shift").implementation, large, {})).all()


def test_no_batch_support_is_right_on_2d_and_wrong_on_batched_input():
    batched, unbatched = distinguishing_inputs()["scaled_dot_product_attention"]
    implementation = mutant("attention.no_batch_support").implementation
    reference = attn_reference.scaled_dot_product_attention
    assert same(outcome(implementation, *unbatched[1:]), outcome(reference, *unbatched[1:]))
    assert isinstance(outcome(implementation, *batched[1:]), StudentException)


#: The bugs the autograder issue requires the grader to name, by id.
REQUIRED_IDS = (
    "softmax.no_max_shift", "softmax.wrong_axis", "softmax.not_normalized",
    "attention.no_scaling", "attention.scale_by_dk", "attention.scale_by_wrong_dim", "attention.scale_after_softmax",
    "attention.mask_inverted", "attention.mask_after_softmax", "attention.multiplicative_mask",
    "attention.wrong_axis", "attention.no_batch_support",
    "variance.not_sampled", "variance.scaled_by_dk", "additive.missing_tanh", "additive.swapped_weights",
    "luong.general_transposed", "luong.concat_order", "context.no_softmax", "context.mask_ignored",
    "heads.reshape_without_transpose", "heads.merge_mismatch", "mha.scale_by_d_model", "mha.missing_output_projection",
)


def test_every_required_bug_is_in_the_catalog():
    assert set(REQUIRED_IDS) <= {m.id for m in MUTANTS}
