"""Test doubles shared by the autograder tests."""

from __future__ import annotations

import numpy as np

from autograder.call import CallOutcome
from autograder.errors import MissingFunction, NotImplementedYet, StudentException
from autograder.inputs import materialize
from autograder.sandbox.worker import input_snapshots, modified_inputs, returned_kinds


class InProcessSubmission:
    """A submission made of trusted in-process callables (mutants, the reference), for test-power checks.

    It converts results like the sandboxed worker does, so hidden tests see the same
    values; it must never be used for student code.
    """

    def __init__(self, functions: dict):
        self._functions = functions

    def call(self, function: str, *args, **kwargs):
        return self.call_observed(function, *args, **kwargs).result

    def call_observed(self, function: str, *args, **kwargs) -> CallOutcome:
        """The call's result and what else it did, observed the way the worker observes it."""
        implementation = self._functions.get(function)
        if implementation is None:
            raise MissingFunction(f"no function {function!r}")
        args, kwargs = materialize(args), materialize(kwargs)
        before = input_snapshots(args, kwargs)
        try:
            with np.errstate(all="ignore"):
                result = implementation(*args, **kwargs)
        except NotImplementedError as error:
            raise NotImplementedYet(str(error)) from None
        except Exception as error:
            raise StudentException(f"{type(error).__name__}: {error}") from None
        returned = returned_kinds(result)
        converted = tuple(np.asarray(part) for part in result) if isinstance(result, tuple) else np.asarray(result)
        return CallOutcome(converted, tuple(modified_inputs(before, args, kwargs)), returned["container"], tuple(returned["parts"]))

    def __getattr__(self, function: str):
        return lambda *args, **kwargs: self.call(function, *args, **kwargs)
