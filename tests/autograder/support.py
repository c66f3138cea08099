"""Test doubles shared by the autograder tests."""

from __future__ import annotations

import numpy as np

from autograder.errors import MissingFunction, NotImplementedYet, StudentException
from autograder.inputs import materialize


class InProcessSubmission:
    """A submission made of trusted in-process callables (mutants, the reference), for test-power checks.

    It converts results like the sandboxed worker does, so hidden tests see the same
    values; it must never be used for student code.
    """

    def __init__(self, functions: dict):
        self._functions = functions

    def call(self, function: str, *args, **kwargs):
        implementation = self._functions.get(function)
        if implementation is None:
            raise MissingFunction(f"no function {function!r}")
        try:
            with np.errstate(all="ignore"):
                result = implementation(*materialize(args), **materialize(kwargs))
        except NotImplementedError as error:
            raise NotImplementedYet(str(error)) from None
        except Exception as error:
            raise StudentException(f"{type(error).__name__}: {error}") from None
        if isinstance(result, tuple):
            return tuple(np.asarray(part) for part in result)
        return np.asarray(result)

    def __getattr__(self, function: str):
        return lambda *args, **kwargs: self.call(function, *args, **kwargs)
