"""Error carried forward: re-check a function with its graded upstream functions answered by the reference.

When attention calls the student's ``softmax`` and that softmax is wrong, attention's
result is wrong too, through no fault of its own. Exams mark such a question right when
it is right *given* the earlier wrong answer. Here a function that calls other graded
functions of the same assignment, and fails a check, is called once more with each of
those upstream names bound, in the student's module and for that one call only, to a
stand-in that returns the *reference* upstream's result for the arguments it gets (the
arrays travel to the grader and back; the reference never enters the sandbox). That
second result is compared with the reference, never with anything else the student's
code returned: a downstream function that ignores its upstream, returns a constant, or
only forwards what its upstream raises gains nothing from the re-check.

A check passed this way is *carried*: it keeps its points only when one of the upstream
functions fails its own tests in the same run (:func:`autograder.engine.carried.settle`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from autograder.errors import SubmissionError
from autograder.judge.compare import contract, reference_function, same_values, split


def upstream_of(function: str, questions: tuple[str, ...]) -> tuple[str, ...]:
    """The graded functions of this assignment that ``function`` calls."""
    return tuple(name for name in contract(function).calls if name in questions and name != function)


def call_graph(questions: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """For each graded function of an assignment, the graded functions of it that it calls."""
    return {function: upstream_of(function, tuple(questions)) for function in questions}


def reference_answers(functions: tuple[str, ...]) -> dict[str, Callable]:
    """For each upstream function, the trusted callable that answers its stand-in: the reference itself, which also
    answers arguments that only broadcast together (:func:`broadcasting`)."""
    return {name: broadcasting(reference_function(name)) for name in functions}


def broadcasting(reference: Callable) -> Callable:
    """``reference``, answering a call it refuses for its arrays' shapes with its answer on those arrays broadcast to
    one shape. A student's own upstream that works elementwise accepts such a call (``softmax_backward(A, dA)`` with
    A (L_q, L_k) and dA (B, L_q, L_k)); a downstream that is right with it must not be charged for the upstream's
    bug. The answer is still the reference's on valid inputs, and the downstream's result is compared with the
    reference's as before."""

    def answer(*args, **kwargs):
        try:
            return reference(*args, **kwargs)
        except ValueError:
            arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]
            if len(arrays) < 2 or len({args[i].shape for i in arrays}) < 2:
                raise
            try:
                broadcast = np.broadcast_arrays(*(args[i] for i in arrays))
            except ValueError:
                raise ValueError("the arguments' shapes do not broadcast together") from None
            given = list(args)
            for i, array in zip(arrays, broadcast):
                given[i] = np.ascontiguousarray(array)
            return reference(*given, **kwargs)

    return answer


def recheck(subject, function: str, upstream: tuple[str, ...], args: tuple, kwargs: dict):
    """The outcome of ``function`` called again with ``upstream`` answered by the reference.

    Returns
    -------
    CallOutcome, SubmissionError or None
        What the re-check gave (a student failure is an outcome too), or None when there
        is nothing to re-check: no upstream, or a submission that cannot bind stand-ins.
    """
    rebinding = getattr(subject, "call_with_standins", None)
    if not upstream or rebinding is None or not getattr(subject, "rebinds", True):
        return None
    try:
        return rebinding(function, reference_answers(upstream), tuple(args), dict(kwargs))
    except SubmissionError as error:
        return error


def standin_caller(subject, function: str, upstream: tuple[str, ...]) -> Callable:
    """``call(*args, **kwargs)``: the student's ``function`` with ``upstream`` answered by the reference (for diagnoses)."""
    answers = reference_answers(upstream)

    def call(*args, **kwargs):
        return subject.call_with_standins(function, answers, args, kwargs).result

    return call


def holds_or_carried(subject, tol, function: str, args: tuple, kwargs: dict, result,
                     condition: Callable[[object], bool]) -> bool:
    """Whether ``condition`` holds on ``result`` (a call's right-valued result), or else on ``function``'s own result
    with its failing upstream functions answered by the reference, that result right as well; then the pass is
    carried from them.

    An exact property checked after the values (a masked query's gradient exactly 0) can fail through an upstream's
    tiny error alone (its softmax_backward clipping weights at 1e-10): the downstream is not charged for it. The
    re-check's result is held to the reference like any re-check's: a function that answers the re-check with
    something else than the right values gains nothing from it.
    """
    from autograder.grade.expect import _failing_upstream, reference_parts, tolerance_for  # noqa: PLC0415 (expect imports carry)

    if condition(result):
        return True
    upstream = _failing_upstream(subject, function)
    rechecked = recheck(subject, function, upstream, args, kwargs)
    if rechecked is None or isinstance(rechecked, SubmissionError):
        return False
    try:
        right = same_values(reference_parts(function, args, kwargs), split(rechecked.result), tolerance_for(args, kwargs, tol))
    except ValueError:
        return False
    if not (right and condition(rechecked.result)):
        return False
    subject.carry_from(upstream)
    return True
