"""diagnose: probes first, then the mutant catalog, fallbacks only when nothing else matched,
one diagnosis per bug id with its hint filled in."""

from __future__ import annotations

import math

import numpy as np
import pytest

from autograder.diagnose import diagnosis
from autograder.diagnose.case import Case
from autograder.diagnose.diagnosis import diagnose as diagnose_given, explain, findings_for
from autograder.diagnose.probes.finding import Finding
from autograder.engine.results import Diagnosis
from autograder.errors import SubmissionError
from autograder.judge.compare import Raised, Tolerance, reference_function, run, split
from autograder.mutants.replay import replay_mutants
from tests.autograder.support import InProcessSubmission


def diagnose(case, finders=(replay_mutants,)):
    """What the grader says of a failed call: the probes, then the course's mutant catalog."""
    return diagnose_given(case, finders)

TOL = Tolerance(1e-5, 1e-8)
SDPA = "scaled_dot_product_attention"


def normal(shape, seed=0, scale=1.0):
    return scale * np.random.default_rng(seed).standard_normal(shape)


def case_of(function, args, kwargs=None, *, student) -> Case:
    """A failed call: ``student`` runs through the in-process double and may be called again."""
    kwargs = kwargs or {}
    submission = InProcessSubmission({function: student})
    try:
        outcome = split(submission.call(function, *args, **kwargs))
    except SubmissionError as error:
        outcome = Raised(error)
    return Case(function, args, kwargs, TOL, run(reference_function(function), args, kwargs), outcome,
                lambda *a, **k: submission.call(function, *a, **k))


def softmax_along(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def qkv(batch=()):
    return normal(batch + (5, 4), 1), normal(batch + (6, 4), 2), normal(batch + (6, 3), 3)


# ---------------------------------------------------------------------------------------
# explain


def test_explain_fills_each_hint_with_the_function_and_the_facts():
    explained = explain("softmax", [Finding("softmax.wrong_axis", {"actual": "axis 0", "expected": "n (axis -1)"})])
    assert explained == (
        Diagnosis("softmax.wrong_axis",
                  "Your softmax normalises along axis 0 instead of along n (axis -1), the axis it is given."),
    )


def test_explain_names_the_function_in_generic_hints():
    (only,) = explain("merge_heads", [Finding("call.modifies_input", {"argument": "X"})])
    assert only.hint.startswith("Your merge_heads changes its argument X in place")


def test_explain_keeps_the_first_finding_of_each_id_in_order():
    findings = [
        Finding("attention.scale_by_wrong_dim", {"dimension": "d_v"}),
        Finding("attention.mask_ignored"),
        Finding("attention.scale_by_wrong_dim", {"dimension": "L_k"}),
    ]
    explained = explain(SDPA, findings)
    assert [d.id for d in explained] == ["attention.scale_by_wrong_dim", "attention.mask_ignored"]
    assert "square root of d_v instead" in explained[0].hint


def test_explain_of_no_findings_is_empty():
    assert explain("softmax", []) == ()


def test_explain_of_an_unregistered_id_raises_key_error():
    with pytest.raises(KeyError, match="softmax.made_up"):
        explain("softmax", [Finding("softmax.made_up")])


# ---------------------------------------------------------------------------------------
# findings_for: the order of the sources


@pytest.fixture
def sources(monkeypatch):
    """Replace the probes and the fallbacks by recorders returning set findings; a recorder for the finders given."""
    called = []
    found = {"probe": [Finding("softmax.no_max_shift")], "second": [Finding("softmax.not_normalized")],
             "mutant": [Finding("softmax.wrong_axis", {"actual": "a", "expected": "b"})],
             "fallback": [Finding("softmax.no_keepdims")]}

    def source(name):
        def run_source(case):
            called.append(name)
            return list(found[name])
        return run_source

    monkeypatch.setattr(diagnosis, "PROBES", (source("probe"), source("second")))
    monkeypatch.setattr(diagnosis, "FALLBACK_PROBES", (source("fallback"),))
    return called, found, (source("mutant"),)


def any_case() -> Case:
    x = normal((2, 3))
    return Case("softmax", (x,), {}, TOL, split(softmax_along(x)), split(x))


def test_probe_findings_come_before_mutant_findings(sources):
    called, _, finders = sources
    assert [f.id for f in findings_for(any_case(), finders)] == ["softmax.no_max_shift", "softmax.not_normalized", "softmax.wrong_axis"]
    assert called == ["probe", "second", "mutant"]


def test_fallbacks_run_only_when_nothing_else_matched(sources):
    called, found, finders = sources
    found["probe"], found["second"], found["mutant"] = [], [], []
    assert findings_for(any_case(), finders) == [Finding("softmax.no_keepdims")]
    assert called == ["probe", "second", "mutant", "fallback"]


def test_a_mutant_alone_keeps_the_fallbacks_away(sources):
    called, found, finders = sources
    found["probe"], found["second"] = [], []
    assert findings_for(any_case(), finders) == [Finding("softmax.wrong_axis", {"actual": "a", "expected": "b"})]
    assert "fallback" not in called


def test_a_probe_alone_keeps_the_fallbacks_away(sources):
    called, found, finders = sources
    found["second"], found["mutant"] = [], []
    assert findings_for(any_case(), finders) == [Finding("softmax.no_max_shift")]
    assert "fallback" not in called


def test_diagnose_explains_the_findings_in_order(sources):
    assert [d.id for d in diagnose(any_case(), sources[2])] == ["softmax.no_max_shift", "softmax.not_normalized", "softmax.wrong_axis"]


# ---------------------------------------------------------------------------------------
# diagnose on real wrong implementations


def test_a_right_result_has_no_probe_or_mutant_finding():
    for function, args in (("softmax", (normal((3, 4)),)), (SDPA, qkv((2,))), ("causal_mask", (4,))):
        case = case_of(function, args, student=reference_function(function))
        assert [f for probe in diagnosis.PROBES for f in probe(case)] == []
        assert replay_mutants(case) == []


def test_a_right_causal_mask_has_no_diagnosis():
    assert diagnose(case_of("causal_mask", (4,), student=lambda n: np.tri(n, dtype=bool))) == ()


def test_a_right_result_has_no_diagnosis():
    x = normal((3, 4))
    assert diagnose(case_of("softmax", (x,), student=softmax_along)) == ()
    assert diagnose(case_of(SDPA, qkv((2,)), student=reference_function(SDPA))) == ()


def test_a_bug_found_by_a_probe_and_a_mutant_is_diagnosed_once():
    def no_shift(x, axis=-1):
        return np.exp(x) / np.sum(np.exp(x), axis=axis, keepdims=True)

    diagnoses = diagnose(case_of("softmax", (1e3 + normal((3, 4)),), student=no_shift))
    assert [d.id for d in diagnoses] == ["softmax.no_max_shift"]
    assert diagnoses[0].hint.startswith("Your softmax does not subtract each slice's maximum")


def test_the_probes_facts_fill_the_hint():
    def by_sqrt_d_v(Q, K, V, mask=None):
        A = softmax_along(Q @ K.T / math.sqrt(V.shape[-1]))
        return A @ V, A

    diagnoses = diagnose(case_of(SDPA, qkv(), student=by_sqrt_d_v))
    assert [d.id for d in diagnoses] == ["attention.scale_by_wrong_dim"]
    assert "square root of d_v instead of sqrt(d_k)" in diagnoses[0].hint


def test_a_bug_only_a_fallback_recognises_is_diagnosed():
    def transposes_three_axes(Q, K, V, mask=None):  # right with exactly one batch axis
        A = softmax_along(Q @ K.transpose(0, 2, 1) / math.sqrt(Q.shape[-1]))
        return A @ V, A

    diagnoses = diagnose(case_of(SDPA, qkv((2, 3)), student=transposes_three_axes))
    assert [d.id for d in diagnoses] == ["call.one_batch_axis_only"]
    assert str(diagnoses[0].hint).startswith("Your scaled_dot_product_attention is right when the inputs have exactly one batch axis")


def test_an_unrecognisable_wrong_result_names_no_bug_and_says_only_what_is_observed():
    def noise(Q, K, V, mask=None):
        return np.ones((5, 3)), np.abs(normal((5, 6), 9))

    diagnoses = diagnose(case_of(SDPA, qkv(), student=noise))
    assert [d.id for d in diagnoses] == ["observed.condition"]  # no relation fits noise; it fails on every variation
    assert diagnoses[0].hint.startswith("Where it fails: everywhere tried")


def test_every_hint_of_a_diagnosis_is_filled():
    def keys_as_values_unscaled(Q, K, V, mask=None):
        A = softmax_along(Q @ K.T)
        return A @ K, A

    for d in diagnose(case_of(SDPA, qkv(), student=keys_as_values_unscaled)):
        assert "{" not in d.hint and d.hint.startswith("Your ")
