"""Error carried forward: judge a function against the reference built from the student's own pieces.

When attention calls the student's ``softmax`` and that softmax is wrong, attention's
result is wrong too, through no fault of its own. Exams mark such a question right when
it is right *given* the earlier wrong answer. Here, the reference of a function that
calls other graded functions of the same assignment is computed a second time with the
student's versions of those functions, called through the sandbox (the reference itself
never enters it). A result equal to that carried reference keeps its points.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from autograder.errors import StudentException
from autograder.grade.compare import Parts, Raised, Tolerance, agrees, contract, reference_function, run


@dataclass(frozen=True)
class Carried:
    """The reference recomputed with the student's upstream functions.

    Attributes
    ----------
    functions : tuple of str
        The upstream functions whose student versions were used.
    reference : Parts or Raised
        The carried reference's result, or the student exception an upstream function
        raised on the way.
    dependencies : dict
        The callables that stand for the student's functions (for further diagnosis).
    """

    functions: tuple[str, ...]
    reference: Parts | Raised
    dependencies: dict = field(default_factory=dict)

    def explains_exception(self, error: StudentException) -> bool:
        """Whether the student's function raised what its upstream function raises here, inside that function.

        The traceback's innermost frame must be in one of the upstream functions when the
        traceback shows frames at all.
        """
        raised = self.reference.error if isinstance(self.reference, Raised) else None
        if not isinstance(raised, StudentException) or raised.last_line != error.last_line:
            return False
        return error.innermost_function in self.functions or not error.innermost_function  # no frames: no say


def upstream_of(function: str, questions: tuple[str, ...]) -> tuple[str, ...]:
    """The graded functions of this assignment that ``function`` calls."""
    return tuple(name for name in contract(function).calls if name in questions and name != function)


def student_version(subject, name: str) -> Callable:
    """A callable that runs the student's ``name`` in the sandbox and returns its result."""

    def call(*args, **kwargs):
        return subject.call(name, *args, **kwargs)

    call.__name__ = name
    return call


def _unchanged(reference: Parts, carried: Parts, tol: Tolerance) -> bool:
    """The student's upstream functions give the reference's own answer here: values and dtypes."""
    same_dtypes = all(a.dtype == b.dtype for a, b in zip(reference.arrays, carried.arrays))
    return same_dtypes and agrees(reference, carried, tol)


def carry_forward(subject, function: str, args: tuple, kwargs: dict, reference: Parts, tol: Tolerance) -> Carried | None:
    """The reference computed with the student's upstream functions, when they change it.

    Returns None when the function calls no graded upstream function, when the student's
    upstream functions fail on these inputs other than by a student exception, or when
    they give the reference's own answer here (then nothing is carried: the student's
    function alone decides).
    """
    functions = upstream_of(function, getattr(subject, "questions", ()))
    if not functions:
        return None
    dependencies = {name: student_version(subject, name) for name in functions}
    carried = run(reference_function(function), args, {**kwargs, **dependencies})
    if isinstance(carried, Raised) and not isinstance(carried.error, StudentException):
        return None
    if isinstance(carried, Parts) and _unchanged(reference, carried, tol):
        return None
    return Carried(functions, carried, dependencies)
