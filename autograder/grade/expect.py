"""What hidden tests call: run the student's function in the worker and judge its result.

:func:`expect_reference` is the one check most hidden tests make. It calls the student's
function through the sandbox, then :func:`judge` decides, in this order:

1. the call's properties (inputs left unmodified, arrays not lists, float32 kept);
2. the result against the reference (or another result the contract accepts);
3. when that fails and the function calls other graded functions, the function called
   again with those answered by the reference, against the reference (error carried
   forward, :mod:`autograder.grade.carry`);
4. when it still fails, what the difference is (:mod:`autograder.judge.messages`) and
   which bug explains it (:mod:`autograder.diagnose`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from autograder.sandbox.call import CallOutcome
from autograder.diagnose.case import Case
from autograder.diagnose.diagnosis import diagnose, explain, observed_shape
from autograder.diagnose.properties import call_properties, other_kind_result
from autograder.engine.results import Diagnosis
from autograder.mutants.replay import replay_mutants
from autograder.engine.subject import Subject
from autograder.errors import BadReturn, GraderError, NotImplementedYet, StudentException, SubmissionError
from autograder.grade.carry import recheck, standin_caller, upstream_of
from autograder.judge.compare import (
    Parts,
    Raised,
    Tolerance,
    contract,
    find_difference,
    reference_function,
    run,
    same_values,
    split,
)
from autograder.grade.figures import keep_figure, wants_failing_case, weights_figure
from autograder.judge.messages import describe
from autograder.engine.outcome import CONTRACT_SHARE
from autograder.i18n import Message, N_, msg

#: Tolerance floor for float32 inputs: float32 arithmetic differs in the 6th or 7th digit.
FLOAT32_TOLERANCE = Tolerance(rtol=1e-4, atol=1e-6)
#: Tolerance floor for float16 inputs: float16 has about 3 significant digits.
FLOAT16_TOLERANCE = Tolerance(rtol=5e-3, atol=1e-4)
#: What a broken call property says, before the diagnosis's hint, by bug id.
#: Finders of bugs beyond the probes: the course's mutant catalog.
FINDERS = (replay_mutants,)

PROPERTY_PROBLEMS = {
    "call.modifies_input": N_("the call changed its argument {argument} in place"),
    "call.returns_list": N_("it returned a Python list instead of {documented}"),
    "call.float32_promoted": N_("it returned float64 for float32 input"),
    "call.wrong_dtype": N_("it returned {got} where {expected} is documented"),
}


def float32_tolerance(tol: Tolerance) -> Tolerance:
    """The looser of the course's tolerance and the float32 floor."""
    return Tolerance(max(tol.rtol, FLOAT32_TOLERANCE.rtol), max(tol.atol, FLOAT32_TOLERANCE.atol))


def _has_dtype(value, dtype) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype == dtype
    if isinstance(value, (tuple, list)):
        return any(_has_dtype(v, dtype) for v in value)
    return False


def tolerance_for(args: tuple, kwargs: dict, tol: Tolerance) -> Tolerance:
    """``tol``, loosened to the float32 floor when any input is float32, and to the float16 floor for float16 input
    (a result computed in float16 is then judged by its dtype, a broken contract, not by its last digits)."""
    inputs = tuple(args) + tuple(kwargs.values())
    if _has_dtype(inputs, np.float16):
        return Tolerance(max(tol.rtol, FLOAT16_TOLERANCE.rtol), max(tol.atol, FLOAT16_TOLERANCE.atol))
    return float32_tolerance(tol) if _has_dtype(inputs, np.float32) else tol


class CheckFailed(AssertionError):
    """A hidden check failed with a message written for the student (no hidden inputs in it)."""

    def __init__(self, student_message: Message):
        super().__init__(student_message)
        self.student_message = student_message

    def __reduce__(self):
        return type(self), (self.student_message,)


class Mismatch(AssertionError):
    """The student's result is wrong.

    Attributes
    ----------
    student_message : Message
        What is wrong: shapes, dtype, the first mismatching entry; never the hidden inputs.
    diagnoses : tuple of Diagnosis
        The named bugs that explain it.
    """

    def __init__(self, student_message: Message, diagnoses: tuple[Diagnosis, ...] = (), contract: bool = False):
        self.student_message = student_message
        self.diagnoses = tuple(diagnoses)
        self.contract = contract  # the values were right: only the contract is broken
        super().__init__(self.report())

    def report(self) -> str:
        """The message followed by one "Likely cause" line per diagnosis."""
        return "\n".join([self.student_message, *(msg("Likely cause: {hint}", hint=d.hint) for d in self.diagnoses)])

    def __reduce__(self):
        return type(self), (self.student_message, self.diagnoses, self.contract)


@dataclass(frozen=True)
class Verdict:
    """What :func:`judge` concluded: ``problem`` is empty for a right result; ``contract`` when only the contract broke."""

    problem: Message | str = ""
    diagnoses: tuple[Diagnosis, ...] = ()
    carried_from: tuple[str, ...] = ()
    contract: bool = False

    @property
    def right(self) -> bool:
        return not self.problem


def expect(condition: bool, student_message: Message) -> None:
    """Fail the test with ``student_message`` unless ``condition`` holds.

    Raises
    ------
    CheckFailed
    """
    if not condition:
        raise CheckFailed(student_message)


def reference_parts(function: str, args: tuple, kwargs: dict) -> Parts:
    """The reference's result.

    Raises
    ------
    GraderError
        When the reference rejects the test's inputs (a broken hidden test).
    """
    reference = run(reference_function(function), args, kwargs)
    if isinstance(reference, Raised):
        raise GraderError(f"attn_reference.{function} raised on the test's inputs: {reference.error!r}") from reference.error
    return reference


def _accepted(function: str, args: tuple, kwargs: dict, reference: Parts, result, tol: Tolerance) -> bool:
    """Equal to the reference, or to another result the contract accepts (another valid estimator)."""
    if find_difference(reference, result, tol) is None:
        return True
    for variant in contract(function).accepted:
        alternative = run(reference_function(function), args, {**kwargs, **dict(variant)})
        if isinstance(alternative, Parts) and find_difference(alternative, result, tol) is None:
            return True
    return False


def _property_verdict(function: str, properties) -> Verdict:
    first = properties[0]
    return Verdict(Message(PROPERTY_PROBLEMS[first.id], first.facts), explain(function, properties), contract=True)


def reshaped_right(reference: Parts, result, tol: Tolerance) -> bool:
    """Whether ``result`` has the reference's values in a shape that only adds or drops size-1 axes (a keepdims slip)."""
    try:
        student = split(result)
    except ValueError:
        return False
    if student.is_tuple != reference.is_tuple or len(student.arrays) != len(reference.arrays):
        return False
    if all(a.shape == e.shape for a, e in zip(student.arrays, reference.arrays)):
        return False
    if any(tuple(n for n in a.shape if n != 1) != tuple(n for n in e.shape if n != 1)
           for a, e in zip(student.arrays, reference.arrays)):
        return False
    reshaped = tuple(a.reshape(e.shape) for a, e in zip(student.arrays, reference.arrays))
    return find_difference(reference, reshaped if reference.is_tuple else reshaped[0], tol) is None


def _right(function: str, args: tuple, kwargs: dict, reference: Parts, outcome, tol: Tolerance) -> bool:
    """A call that returned an accepted result and kept every call property."""
    return (isinstance(outcome, CallOutcome) and _accepted(function, args, kwargs, reference, outcome.result, tol)
            and not call_properties(function, reference, outcome))


def judge(subject, tol: Tolerance, function: str, args: tuple, kwargs: dict, outcome: CallOutcome | SubmissionError) -> Verdict:
    """Decide whether a call's outcome is right, and explain it when it is not.

    A wrong outcome of a function that calls other graded functions of the assignment is
    re-checked with those answered by the reference (:mod:`autograder.grade.carry`); a
    right re-check is a carried pass, which scoring accepts only when an upstream function
    fails its own tests.
    """
    own_stub = isinstance(outcome, NotImplementedYet) and outcome.raised_in == function
    upstream = () if own_stub else _failing_upstream(subject, function)
    unexplained = isinstance(outcome, SubmissionError) and not isinstance(outcome, StudentException)
    if unexplained and not upstream:
        return Verdict(outcome.student_message)  # a timeout, crash, stub or unusable return: nothing to compare
    reference = reference_parts(function, args, kwargs)
    if _right(function, args, kwargs, reference, outcome, tol):
        return Verdict()
    rechecked = recheck(subject, function, upstream, args, kwargs)
    if _right(function, args, kwargs, reference, rechecked, tol):
        return Verdict(carried_from=upstream)
    own = rechecked if isinstance(rechecked, CallOutcome) else None  # the function's own behaviour, upstream set right
    caller = standin_caller(subject, function, upstream) if own is not None else _caller(subject, function)
    if isinstance(outcome, SubmissionError):
        return _failed_call(function, args, kwargs, outcome, reference, tol, own, caller)
    if _accepted(function, args, kwargs, reference, outcome.result, tol):
        return _property_verdict(function, call_properties(function, reference, outcome))
    other_kind = other_kind_result(function, reference, outcome.result, tol)
    if other_kind:  # the right values in another kind of dtype: the contract broken, not the values
        problem = describe(find_difference(reference, outcome.result, tol), function, args, kwargs, reference.is_tuple, tol)
        return Verdict(problem, explain(function, other_kind + call_properties(function, reference, outcome)), contract=True)
    if reshaped_right(reference, outcome.result, tol):  # right values, a size-1 axis too many or too few
        problem = describe(find_difference(reference, outcome.result, tol), function, args, kwargs, reference.is_tuple, tol)
        named = explain(function, call_properties(function, reference, outcome))
        shape = () if named else observed_shape(Case(function, args, kwargs, tol, reference, split(outcome.result)))
        return Verdict(problem, named + shape, contract=True)
    return _explained(tol, function, args, kwargs, outcome, reference, own or outcome, caller)


def _failing_upstream(subject, function: str) -> tuple[str, ...]:
    """The graded functions ``function`` calls that have failed a test of their own so far in this run.

    Their tests run first, and a pass carried forward counts only from a failing upstream
    function (:mod:`autograder.engine.carried`), so only those are answered by the reference
    in a re-check: the student's right ones stay theirs, and a function whose upstream
    functions all pass is judged as it is, without a second call.
    """
    if not isinstance(subject, Subject):
        return ()
    return tuple(name for name in upstream_of(function, subject.questions) if subject.has_failed(name))


def _failed_call(function, args, kwargs, error: SubmissionError, reference: Parts, tol, own, caller) -> Verdict:
    """A call that raised or returned something unusable: its message, and the bug behind a student exception."""
    if not isinstance(error, StudentException):
        return Verdict(error.student_message)
    student = Raised(error)
    if own is not None:
        try:
            student = split(own.result)
        except ValueError:
            pass
    case = Case(function, args, kwargs, tol, reference, student, caller, memo=_memo(caller))
    return Verdict(error.student_message, diagnose(case, FINDERS))


def _caller(subject, function: str):
    if subject is None:
        return None

    def call(*args, **kwargs):
        return subject.call(function, *args, **kwargs)

    call.memo = subject.diagnosis_memo(function) if isinstance(subject, Subject) else {}
    return call


def _memo(caller) -> dict:
    """The memo of the function's diagnoses in this run (a fresh one without a submission to call)."""
    memo = getattr(caller, "memo", None)
    return memo if memo is not None else {}


def _explained(tol, function, args, kwargs, outcome: CallOutcome, reference: Parts, own: CallOutcome, caller) -> Verdict:
    """A wrong result: what differs from the reference, and the bugs that explain ``own`` (its re-check, if any)."""
    properties = call_properties(function, reference, own)
    difference = find_difference(reference, outcome.result, tol)
    problem = describe(difference, function, args, kwargs, reference.is_tuple, tol)
    try:
        student = split(own.result)
    except ValueError:
        return Verdict(problem, explain(function, properties))
    case = Case(function, args, kwargs, tol, reference, student, caller, memo=_memo(caller))
    return Verdict(problem, explain(function, properties) + _new(diagnose(case, FINDERS), properties))


def _new(diagnoses: tuple[Diagnosis, ...], properties) -> tuple[Diagnosis, ...]:
    known = {finding.id for finding in properties}
    return tuple(d for d in diagnoses if d.id not in known)


def _call(submission, function: str, args: tuple, kwargs: dict) -> CallOutcome | SubmissionError:
    """Call the student's function; any failure of the submission becomes the outcome."""
    observed = getattr(submission, "call_observed", None)
    try:
        if observed is not None:
            return observed(function, *args, **kwargs)
        return CallOutcome(submission.call(function, *args, **kwargs))
    except SubmissionError as error:
        return error


def _weights_part(function: str) -> int | None:
    """Which returned part of ``function`` is a distribution (attention weights), if any."""
    distribution = contract(function).distribution
    return None if distribution is None else distribution.output


def _keep_figures(submission, function: str, args, kwargs, outcome, verdict: Verdict, title: str, worked_example: bool) -> None:
    """Keep the weights of the worked example, and of the question's first failing call, to draw in the feedback."""
    part = _weights_part(function)
    failing_case = not verdict.right and not worked_example and wants_failing_case(submission)
    if part is None or not isinstance(outcome, CallOutcome) or not (worked_example or failing_case):
        return
    try:
        student = split(outcome.result)
    except ValueError:
        return
    reference = reference_parts(function, args, kwargs)
    if failing_case and not worked_example and not _heatmap_shows(reference, student, part):
        return  # a dtype-only or shape-only failure: two identical (or incomparable) pictures would mislead
    if part < len(student.arrays) and part < len(reference.arrays):
        figure = weights_figure(title, reference.arrays[part], student.arrays[part], failing=not verdict.right)
        keep_figure(submission, figure, failing_case=failing_case)


def _heatmap_shows(reference: Parts, student: Parts, part: int) -> bool:
    """Whether the weights part differs in values a heatmap can show: the same shape, and values that differ."""
    if part >= len(student.arrays) or part >= len(reference.arrays):
        return False
    mine, theirs = student.arrays[part], reference.arrays[part]
    if mine.shape != theirs.shape or mine.dtype.kind not in "fiu":
        return False
    return not same_values(Parts(False, (theirs,)), Parts(False, (mine,)), FLOAT32_TOLERANCE)  # finer is invisible


def expect_reference(submission, tol: Tolerance, function: str, *args, what: Message | str = "", worked_example: bool = False,
                     **kwargs):
    """Call ``function`` in the submission and require the reference's result.

    float32 inputs loosen ``tol`` to :data:`FLOAT32_TOLERANCE`. A timeout, crash or
    unimplemented stub propagates as it is; a student exception or an unusable return
    value is a failure of this check. The weights of a ``worked_example`` call, and of the
    question's first failing call, are kept to draw in the feedback (:mod:`autograder.grade.figures`).

    Returns
    -------
    The student's result (array or tuple of arrays), for further checks; None when the
    call failed and its re-check with the reference's upstream functions passed.

    Raises
    ------
    Mismatch
        When the result is wrong, with the diagnoses that explain it.
    """
    tol = tolerance_for(args, kwargs, tol)
    outcome = _call(submission, function, args, kwargs)
    verdict = judge(submission, tol, function, args, kwargs, outcome)
    if not verdict.right and isinstance(outcome, SubmissionError) and not isinstance(outcome, (StudentException, BadReturn)):
        raise outcome  # a timeout, crash or unimplemented stub is reported as it is
    _keep_figures(submission, function, args, kwargs, outcome, verdict, what or function, worked_example)
    if verdict.contract:
        problem = msg("{problem} (values right, contract broken: this costs {share} % of the question once, however "
                      "many tests show it)", problem=verdict.problem, share=f"{CONTRACT_SHARE * 100:g}")
        raise Mismatch(msg("{what}: {problem}", what=what or function, problem=problem), verdict.diagnoses, contract=True)
    if not verdict.right:
        raise Mismatch(msg("{what}: {problem}", what=what or function, problem=verdict.problem), verdict.diagnoses)
    if verdict.carried_from and hasattr(submission, "carry_from"):
        submission.carry_from(verdict.carried_from)
    return outcome.result if isinstance(outcome, CallOutcome) else None


def expect_dtype(actual, dtype, what: Message | str) -> None:
    """Require ``actual`` (or each array of a tuple) to have ``dtype``.

    Raises
    ------
    CheckFailed
        Naming the dtype expected and got.
    """
    parts = actual if isinstance(actual, tuple) else (actual,)
    for part in parts:
        got = np.asarray(part).dtype
        expect(got == dtype, msg("{what}: expected dtype {expected}, got {got}", what=what, expected=str(np.dtype(dtype)),
                                 got=str(got)))
