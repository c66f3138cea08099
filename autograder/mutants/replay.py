"""Replay the mutant catalog on a failed call: a known wrong version that gives what the student got."""

from __future__ import annotations

from autograder.diagnose.case import Case
from autograder.diagnose.probes.calls import EXAMPLES, batch_example, batched_arguments
from autograder.diagnose.probes.finding import Finding
from autograder.errors import StudentException
from autograder.judge.compare import Raised, agrees, run, same_values
from autograder.mutants.catalog import mutants_for


def exception_summary(error: BaseException) -> str:
    """``Type: message`` of an exception; for a student's, the last line of its traceback."""
    if isinstance(error, StudentException):
        return error.last_line
    return f"{type(error).__name__}: {error}".strip()


def _same_outcome(mutant, student, case: Case) -> bool:
    """Both raised the same exception, or both returned the same structure with close values."""
    if isinstance(mutant, Raised) or isinstance(student, Raised):
        both = isinstance(mutant, Raised) and isinstance(student, Raised)
        return both and exception_summary(mutant.error) == exception_summary(student.error)
    return same_values(mutant, student, case.tol)


def replay_mutants(case: Case) -> list[Finding]:
    """One finding per bug id whose mutant reproduces the student's outcome here.

    A mutant that cannot be told from the reference on these inputs never matches; an
    exception shared by several bugs names none of them.
    Mutants call the reference's own helpers, so they are replayed only when no error is
    being carried forward (``case.dependencies`` is empty); a result of one boolean or integer
    (a mask of one entry) names none.
    """
    if case.dependencies or _one_flag(case.student):
        return []
    by_values: dict[str, Finding] = {}
    by_exception: dict[str, Finding] = {}
    for candidate in mutants_for(case.function):
        if candidate.id in by_values or candidate.id in by_exception:
            continue
        produced = run(candidate.implementation, case.args, case.kwargs)
        distinguishable = isinstance(produced, Raised) or not agrees(case.reference, produced, case.tol)
        if distinguishable and _same_outcome(produced, case.student, case) and _confirmed(candidate, produced, case):
            found = by_exception if isinstance(produced, Raised) else by_values
            found[candidate.id] = Finding(candidate.id, dict(candidate.facts))
    if len(by_exception) > 1:
        by_exception = {}  # several bugs raise this very error here: the exception alone names none of them
    if len(by_values) > 1:
        by_values = {}  # several bugs give these very values here: this call tells none of them apart
    return [*by_values.values(), *by_exception.values()]


def _one_flag(student) -> bool:
    """A result that is one boolean or integer per part (a mask of one entry): many wrong versions give it alike."""
    parts = getattr(student, "arrays", None)
    return bool(parts) and all(part.size <= 1 and part.dtype.kind in "biu" for part in parts)


def _confirmed(candidate, produced, case: Case) -> bool:
    """An exception alike is weak evidence (numpy words many errors alike): where the mutant, given
    one example of the batch, returns a value, the student's function must return that value too."""
    if not isinstance(produced, Raised):
        return True
    batch, batched = batched_arguments(case)
    if not batch:
        return True
    example = batch_example(case, batch, batched, EXAMPLES[0])
    args, kwargs = case.changed(**example)
    expected = run(candidate.implementation, args, kwargs)
    if isinstance(expected, Raised):
        return True
    answer = case.student_with(**example)
    return answer is not None and same_values(expected, answer, case.tol)
