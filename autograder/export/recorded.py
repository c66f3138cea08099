"""The hidden tests of an assignment as data: every call each test makes with the export's seed, and the answers.

nbgrader and otter grade in the student's kernel, where the reference must not be importable. At
export time, :func:`record_questions` runs the assignment's hidden suite, as ``attn-course grade``
plans and orders it (:func:`autograder.engine.direct.plan`), with the export's seed, against the
reference called exactly as the sandbox calls a submission
(:class:`~autograder.export.namespace.NamespaceSubmission` over the reference's functions). Each
call a test makes is kept: its inputs, the reference's result (and the other results the
contract accepts), the tolerance the judge would use (loosened for float32 inputs) and which
returned parts are documented arrays. An experiment judged statistically
(:func:`autograder.grade.estimates.expect_estimates`) keeps its standard errors. The kernel side,
:mod:`autograder.export.kernel_check`, replays the calls on the notebook's functions.

What data cannot carry is scored without it (see docs/threat-model.md): error carried forward
(the upstream reference would be needed at grading time) and a test's own checks beyond the
reference's result (:func:`approximated_tests` lists those tests; in the kernel they compare
with the reference's result only).

Values are encoded without pickle: arrays as base64 of ``np.save`` bytes (loaded with
``allow_pickle=False``), tuples, generators' seeds and non-finite floats tagged.
"""

from __future__ import annotations

import base64
import inspect
import io
import json
import math
import zlib
from dataclasses import dataclass, field

import numpy as np

from autograder.engine.carried import in_dependency_order
from autograder.engine.direct import plan, run_planned
from autograder.engine.outcome import QUESTION_MARKER, question_of
from autograder.engine.runner import importable
from autograder.engine.subject import Subject
from autograder.errors import GraderError
from autograder.export.cases import DRAW_FIXTURE, suite_files
from autograder.export.namespace import NamespaceSubmission
from autograder.export.spec import GradingSpec
from autograder.grade.carry import call_graph
from autograder.inputs import RngSeed
from autograder.judge.compare import Tolerance, contract, reference_function, run

#: What a test's own source calls when it checks more than the reference's result.
OWN_CHECKS = ("expect(", "expect_dtype(", "assert ", ".carried", "submission.call(")
#: Seconds the reference may take per call while recording (it is trusted; this only stops a broken suite).
RECORD_TIMEOUT_S = 60.0


def encode(value):
    """``value`` as JSON data :func:`autograder.export.kernel_check.decode` reads back.

    Raises
    ------
    GraderError
        For a value the data form does not carry (an object).
    """
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        buffer = io.BytesIO()
        np.save(buffer, np.asarray(value), allow_pickle=False)
        return {"a" if isinstance(value, np.ndarray) else "g": base64.b64encode(buffer.getvalue()).decode("ascii")}
    if isinstance(value, RngSeed):
        return {"rng": int(value.seed)}
    if isinstance(value, tuple):
        return {"t": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {"d": {str(k): encode(v) for k, v in value.items()}}
    if isinstance(value, float) and not math.isfinite(value):
        return {"f": repr(value)}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise GraderError(f"a hidden test passes a {type(value).__name__}, which exported data cannot carry")


def pack(data: dict) -> str:
    """Data as one compact string: base64 of zlib-compressed JSON."""
    return base64.b64encode(zlib.compress(json.dumps(data, separators=(",", ":")).encode("utf-8"), 9)).decode("ascii")


@dataclass
class RecordedTest:
    """One hidden test as data: its name, question, weight, visibility and calls."""

    name: str
    question: str
    weight: float
    visible: bool
    description: str
    calls: list = field(default_factory=list)
    standard_error: tuple | None = None
    approximated: bool = False

    def to_data(self) -> dict:
        data = {"name": self.name, "weight": self.weight, "calls": self.calls}
        if self.standard_error is not None:
            data["standard_error"], data["names"] = self.standard_error
        return data


def _call_data(function: str, args: tuple, kwargs: dict, result, tol: Tolerance, estimate: bool) -> dict:
    """One call: inputs, the results accepted, its tolerance and the documented array parts."""
    from attn_reference.contract import OutputKind
    from autograder.diagnose.case import reference_parameters
    from autograder.grade.expect import tolerance_for

    documented = contract(function)
    expected = [list(result) if isinstance(result, tuple) else [result]]
    for variant in documented.accepted:
        alternative = run(reference_function(function), args, {**kwargs, **dict(variant)})
        if hasattr(alternative, "arrays"):
            expected.append(list(alternative.arrays))
    tolerance = tolerance_for(args, kwargs, tol)
    return {"function": function, "args": encode(tuple(args)), "kwargs": encode(dict(kwargs)),
            "expected": [[encode(np.asarray(p)) for p in parts] for parts in expected], "tuple": isinstance(result, tuple),
            "arrays": [i for i, o in enumerate(documented.outputs) if o.kind is OutputKind.ARRAY],
            "names": reference_parameters(function), "rtol": tolerance.rtol, "atol": tolerance.atol,
            "estimate": estimate}


class RecordingSubject(Subject):
    """The reference as a submission, keeping every call the current test makes."""

    def __init__(self, proxy, questions: tuple[str, ...], tol: Tolerance):
        super().__init__(proxy, questions)
        self.tol = tol
        self.recorded: list[list[dict]] = []
        self.estimating = False

    def start_test(self, question: str = "") -> None:
        super().start_test(question)
        self.recorded.append([])

    def call_observed(self, function: str, *args, **kwargs):
        outcome = super().call_observed(function, *args, **kwargs)
        self.recorded[-1].append(_call_data(function, args, kwargs, outcome.result, self.tol, self.estimating))
        return outcome

    def call(self, function: str, *args, **kwargs):
        return self.call_observed(function, *args, **kwargs).result


def _estimates_recorder(subject: RecordingSubject, original, errors: dict):
    """``expect_estimates`` that also keeps the standard errors of the current test (its calls marked estimates)."""

    def recording(submission, function, calls, standard_error, what, names):
        subject.estimating = True
        try:
            return original(submission, function, calls, standard_error, what, names)
        finally:
            subject.estimating = False
            errors[len(subject.recorded) - 1] = ([float(e) for e in standard_error], [str(n) for n in names])

    return recording


def _patched_estimates(cases, subject: RecordingSubject, errors: dict) -> list:
    """Point each test module's ``expect_estimates`` at the recorder; return what to restore."""
    restore = []
    for case in cases:
        module_globals = case.function.__globals__
        original = module_globals.get("expect_estimates")
        if original is not None and not getattr(original, "recording", False):
            restore.append((module_globals, original))
            module_globals["expect_estimates"] = _estimates_recorder(subject, original, errors)
            module_globals["expect_estimates"].recording = True
    return restore


def record_questions(spec: GradingSpec, tests_dir) -> dict[str, list[RecordedTest]]:
    """Every hidden test of ``spec.assignment``, by question, as recorded with the reference at ``spec.seed``.

    Raises
    ------
    GraderError
        When the suite does not collect, or a test fails with the reference (a broken hidden test).
    """
    files = suite_files(spec.assignment, tests_dir)
    upstream = call_graph(spec.functions)
    namespace = {function: reference_function(function) for function in spec.functions}
    tol = Tolerance(spec.rtol, spec.atol)
    subject = RecordingSubject(NamespaceSubmission(namespace, RECORD_TIMEOUT_S, RECORD_TIMEOUT_S * 100), spec.functions, tol)
    errors: dict[int, tuple] = {}
    with importable(files[0].parent):
        cases = in_dependency_order(plan(files), lambda case: question_of(case.mark(QUESTION_MARKER)), upstream)
        restore = _patched_estimates(cases, subject, errors)
        try:
            results = run_planned(cases, subject, tol, spec.seed, False)
        finally:
            for module_globals, original in restore:
                module_globals["expect_estimates"] = original
    failed = [r.name for r in results if not r.passed]
    if failed or len(results) != len(cases):
        raise GraderError(f"hidden tests of {spec.assignment} fail or skip with the reference: {', '.join(failed)}")
    questions: dict[str, list[RecordedTest]] = {function: [] for function in spec.functions}
    for index, (case, result) in enumerate(zip(cases, results)):
        test = RecordedTest(case.name, result.question, result.weight, DRAW_FIXTURE not in case.fixtures, result.description,
                            subject.recorded[index], errors.get(index), _checks_more(case.function))
        questions[test.question].append(test)
    return questions


def _checks_more(function) -> bool:
    """Whether a test checks more than the reference's result (its own expects, asserts or direct calls)."""
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return True
    return any(marker in source for marker in OWN_CHECKS)


def approximated_tests(questions: dict[str, list[RecordedTest]]) -> list[str]:
    """``question/test`` of each test the data form approximates (its own checks become the reference comparison)."""
    return [f"{test.question}/{test.name}" for tests in questions.values() for test in tests if test.approximated]
