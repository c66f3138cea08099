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

from autograder.errors import SubmissionError
from autograder.judge.compare import contract, reference_function


def upstream_of(function: str, questions: tuple[str, ...]) -> tuple[str, ...]:
    """The graded functions of this assignment that ``function`` calls."""
    return tuple(name for name in contract(function).calls if name in questions and name != function)


def call_graph(questions: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """For each graded function of an assignment, the graded functions of it that it calls."""
    return {function: upstream_of(function, tuple(questions)) for function in questions}


def reference_answers(functions: tuple[str, ...]) -> dict[str, Callable]:
    """For each upstream function, the trusted callable that answers its stand-in: the reference itself."""
    return {name: reference_function(name) for name in functions}


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
