"""What a suite uses of pytest while it is imported (marks and parameters), without importing pytest.

Suites are plain pytest files: they ``import pytest`` and decorate their tests with
``pytest.mark.question(...)``, ``pytest.mark.parametrize(...)`` and ``pytest.param(...)``.
Importing pytest itself takes longer than grading a submission, and the direct runner
(:mod:`autograder.engine.direct`) needs nothing of it but those marks. So while the
direct runner imports a suite, ``import pytest`` gives :func:`stand_in`: marks and
parameters recorded exactly as pytest records them (``pytestmark`` lists of marks with
``name``, ``args`` and ``kwargs``), and every other name (``pytest.raises``,
``pytest.skip``, ``pytest.fixture``, ...) taken from the real pytest, imported on first
use. A suite using a mark or fixture the direct runner does not reproduce is run by
pytest itself, which imports it afresh with the real pytest.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import types
from contextlib import contextmanager
from dataclasses import dataclass, field

PYTEST = "pytest"


@dataclass(frozen=True)
class Mark:
    """One mark: its name and the arguments it was given (as pytest's ``Mark``)."""

    name: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)


@dataclass(frozen=True)
class MarkDecorator:
    """``pytest.mark.<name>(...)``: applied to a test, it appends its mark to ``pytestmark``."""

    mark: Mark

    @property
    def name(self) -> str:
        return self.mark.name

    def __call__(self, *args, **kwargs):
        """Mark a test (one test function or class as the only argument), or add arguments (pytest's rule)."""
        if args and not kwargs and len(args) == 1 and _is_test_target(args[0]):
            target = args[0]
            target.pytestmark = [*getattr(target, "pytestmark", []), self.mark]
            return target
        return MarkDecorator(Mark(self.mark.name, self.mark.args + args, {**self.mark.kwargs, **kwargs}))


def _is_test_target(value) -> bool:
    """What pytest lets a mark decorate: a class, or a callable that is not a lambda."""
    return inspect.isclass(value) or (callable(value) and getattr(value, "__name__", "<lambda>") != "<lambda>")


class MarkGenerator:
    """``pytest.mark``: any attribute is a mark of that name."""

    def __getattr__(self, name: str) -> MarkDecorator:
        if name.startswith("_"):
            raise AttributeError(name)
        return MarkDecorator(Mark(name))


@dataclass(frozen=True)
class ParameterSet:
    """``pytest.param(*values, marks=..., id=...)``."""

    values: tuple
    marks: tuple = ()
    id: str | None = None


def param(*values, marks=(), id=None) -> ParameterSet:  # noqa: A002 - pytest's own keyword
    """One parameter set, as ``pytest.param``."""
    marks = (marks,) if isinstance(marks, MarkDecorator | Mark) else tuple(marks)
    if id is not None and not isinstance(id, str):
        raise TypeError(f"Expected id to be a string, got {type(id)}: {id!r}")
    return ParameterSet(tuple(values), marks, id)


def is_parameter_set(value) -> bool:
    """Whether ``value`` is a ``pytest.param`` (the stand-in's, or the real pytest's when it is imported)."""
    if isinstance(value, ParameterSet):
        return True
    real = _real_pytest_if_imported()
    return real is not None and isinstance(value, real.ParameterSet)


def _real_pytest_if_imported():
    module = sys.modules.get(PYTEST)
    return None if module is None or isinstance(module, _StandIn) else module


class _StandIn(types.ModuleType):
    """The ``pytest`` a suite sees while the direct runner imports it."""

    def __init__(self, real_pytest: types.ModuleType | None):
        super().__init__(PYTEST, __doc__)
        self.mark = MarkGenerator()
        self.param = param
        self.ParameterSet = ParameterSet
        self._real = real_pytest

    def __getattr__(self, name: str):
        """Any public name but marks and parameters: the real pytest's (imported now if it was not).

        Private names are not pytest's API; asking for one (as ``hasattr`` checks do) imports nothing.
        """
        if name.startswith("_"):
            raise AttributeError(name)
        if self._real is None:
            self._real = _import_real_pytest()
        return getattr(self._real, name)


def _import_real_pytest() -> types.ModuleType:
    """The real pytest, imported even while the stand-in sits in ``sys.modules`` (which then holds the real one)."""
    current = sys.modules.get(PYTEST)
    if isinstance(current, _StandIn):
        del sys.modules[PYTEST]
    return importlib.import_module(PYTEST)


@contextmanager
def stand_in():
    """While the block runs, ``import pytest`` gives the stand-in; afterwards ``sys.modules`` is as before
    (or holds the real pytest, if the block needed it)."""
    before = sys.modules.get(PYTEST)
    module = _StandIn(_real_pytest_if_imported())
    sys.modules[PYTEST] = module
    try:
        yield module
    finally:
        if sys.modules.get(PYTEST) is module:
            if before is None:
                del sys.modules[PYTEST]
            else:
                sys.modules[PYTEST] = before


def is_pytest_outcome(error: BaseException) -> bool:
    """Whether ``error`` is one of pytest's outcomes (skip, fail, xfail, exit: BaseExceptions, not Exceptions)."""
    outcomes = sys.modules.get("_pytest.outcomes")
    return outcomes is not None and isinstance(error, outcomes.OutcomeException)


def pytest_outcomes() -> tuple[type[BaseException], ...]:
    """pytest's skip and fail exceptions, if pytest is imported (without it, no test can raise them)."""
    real = _real_pytest_if_imported()
    return (real.skip.Exception, real.fail.Exception) if real is not None else ()


def is_skip(error: BaseException | None) -> bool:
    """Whether a test ended with ``pytest.skip``."""
    real = _real_pytest_if_imported()
    return real is not None and isinstance(error, real.skip.Exception)
