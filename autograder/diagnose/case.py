"""One failed call, as the diagnoses see it: the inputs, the reference's answer, the student's.

A :class:`Case` also lets a probe ask questions the failed call alone cannot answer:
what the reference gives on changed inputs (:meth:`Case.reference_with`), and what the
student's function gives on them (:meth:`Case.student_with`, another call into the sandbox,
bounded per case).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from attn_reference.contract import Contract
from autograder.errors import CallTimeout, SubmissionError
from autograder.judge.compare import Parts, Raised, Tolerance, contract, reference_function, reference_signature, run, same_values, split

#: Most extra calls into the student's function one case may make while diagnosing.
MAX_STUDENT_CALLS = 6


def reference_parameters(function: str) -> list[str]:
    """The names of the reference's documented parameters (not the keyword-only dependencies)."""
    signature = reference_signature(function)
    return [p.name for p in signature.parameters.values() if p.kind is not inspect.Parameter.KEYWORD_ONLY]


@dataclass
class Case:
    """A failed call of a graded function.

    Attributes
    ----------
    function : str
    args, kwargs
        The call's inputs, exactly as the test passed them.
    tol : Tolerance
    reference : Parts
        The reference's result on these inputs.
    student : Parts or Raised
        What the student's call gave (Raised for a student exception).
    call_student : callable or None
        ``call_student(*args, **kwargs)`` calls the student's function again (None: no calls allowed).
    dependencies : dict
        Graded functions the reference should call instead of its own (the student's,
        when an error is carried forward); :meth:`reference_with` uses them.
    memo : dict
        What the diagnoses learned on the function's earlier failed calls of the same submission
        (:meth:`autograder.engine.subject.Subject.diagnosis_memo`; empty for a call alone).
    """

    function: str
    args: tuple
    kwargs: dict
    tol: Tolerance
    reference: Parts
    student: Parts | Raised
    call_student: Callable | None = None
    dependencies: dict = field(default_factory=dict)
    _student_calls: int = field(default=0, repr=False)
    _budgeted_calls: int = field(default=0, repr=False)
    _timed_out: bool = field(default=False, repr=False)
    _redrawn: list | None = field(default=None, repr=False)
    memo: dict = field(default_factory=dict, repr=False)

    @property
    def contract(self) -> Contract:
        return contract(self.function)

    @property
    def arguments(self) -> dict:
        """The documented arguments by name, defaults filled in."""
        bound = reference_signature(self.function).bind(*self.args, **self.kwargs)
        bound.apply_defaults()
        return {name: bound.arguments[name] for name in reference_parameters(self.function)}

    def changed(self, **changes) -> tuple[tuple, dict]:
        """The call's ``(args, kwargs)`` with some arguments replaced, passed the way the test passed them."""
        names = reference_parameters(self.function)
        args = tuple(changes.get(name, value) for name, value in zip(names, self.args))
        kwargs = dict(self.kwargs)
        positional = set(names[: len(self.args)])
        kwargs.update({name: value for name, value in changes.items() if name not in positional})
        return args, kwargs

    def reference_with(self, *, dependencies: dict | None = None, **changes) -> Parts | Raised:
        """The reference's result with arguments changed and, optionally, its graded dependencies replaced."""
        args, kwargs = self.changed(**changes)
        return run(reference_function(self.function), args, {**kwargs, **self.dependencies, **(dependencies or {})})

    @property
    def timed_out(self) -> bool:
        """Whether a call made for the observations hung (then no more are made)."""
        return self._timed_out

    def calls_left(self, budget: int) -> bool:
        """Whether the student's function may still be called within a second budget of ``budget`` calls."""
        return self.call_student is not None and self._budgeted_calls < budget and not self._timed_out

    def student_with(self, *, budget: int | None = None, **changes) -> Parts | None:
        """The student's result with arguments changed (None when it fails or the call budget is spent).

        ``budget`` draws on a second budget of that many calls (the localisation's), kept apart from the probes'.
        """
        if self._timed_out:
            return None
        if budget is None:
            if self.call_student is None or self._student_calls >= MAX_STUDENT_CALLS:
                return None
            self._student_calls += 1
        else:
            if self.call_student is None or self._budgeted_calls >= budget:
                return None
            self._budgeted_calls += 1
        args, kwargs = self.changed(**changes)
        try:
            return split(self.call_student(*args, **kwargs))
        except CallTimeout:
            self._timed_out = True  # a function that hangs once is not called again for observations
            return None
        except (SubmissionError, ValueError):
            return None

    def matches(self, candidate: Parts | Raised | None, *, only_part: int | None = None) -> bool:
        """Whether the student's result equals ``candidate`` (or just part ``only_part`` of both)."""
        if not isinstance(candidate, Parts) or not isinstance(self.student, Parts):
            return False
        if only_part is None:
            return same_values(candidate, self.student, self.tol)
        if only_part >= len(candidate.arrays):
            return False
        return self.part_matches(only_part, candidate.arrays[only_part])

    def part_matches(self, index: int, array: np.ndarray) -> bool:
        """Whether part ``index`` of the student's result equals ``array``."""
        actual = self.student_part(index)
        if actual is None:
            return False
        return same_values(Parts(False, (np.asarray(array),)), Parts(False, (actual,)), self.tol)

    def matches_reference(self, candidate: Parts | Raised | None) -> bool:
        """Whether ``candidate`` is the reference's answer on these inputs."""
        return isinstance(candidate, Parts) and same_values(candidate, self.reference, self.tol)

    def matches_reference_of(self, answer: Parts | None, expected: Parts | Raised) -> bool:
        """Whether ``answer`` (the student's on changed inputs) equals ``expected`` (the reference's on them)."""
        return isinstance(answer, Parts) and isinstance(expected, Parts) and same_values(answer, expected, self.tol)

    def differs_from_reference(self, candidate: Parts | Raised | None) -> bool:
        """Whether ``candidate`` tells a bug apart on these inputs (it is not the reference's answer)."""
        return isinstance(candidate, Parts) and not same_values(candidate, self.reference, self.tol)

    def explains(self, candidate: Parts | Raised | None, *, only_part: int | None = None) -> bool:
        """``candidate`` differs from the reference here and equals what the student gave."""
        if only_part is not None and isinstance(candidate, Parts):
            if only_part >= min(len(candidate.arrays), len(self.reference.arrays)):
                return False
            reference_part = Parts(False, (self.reference.arrays[only_part],))
            if same_values(Parts(False, (candidate.arrays[only_part],)), reference_part, self.tol):
                return False
            return self.matches(candidate, only_part=only_part)
        return self.differs_from_reference(candidate) and self.matches(candidate)

    def student_part(self, index: int) -> np.ndarray | None:
        """One part of the student's result, when it has it."""
        if isinstance(self.student, Parts) and index < len(self.student.arrays):
            return self.student.arrays[index]
        return None
