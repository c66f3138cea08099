"""Stand-ins: upstream functions that the grader answers, bound in the student's module for one call.

Error carried forward re-checks a function that calls other graded functions with those
functions replaced: while the re-check's one call runs, each upstream name in the
submission's module namespace is bound to a stand-in that sends its arguments to the
grader and returns what the grader answers (the reference's result; the reference never
enters the sandbox). When the call ends, the student's own functions are bound again and
every stand-in of that call refuses to be called: one kept in a global answers nothing
later.

This file runs inside the sandbox (and in the grading kernel of an in-process export):
standard library only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import contextmanager

_MISSING = object()


class StandInExpired(RuntimeError):
    """A stand-in called after the re-check it was made for."""


def make_stand_in(name: str, ask: Callable, active: list) -> Callable:
    """A function named ``name`` that forwards ``(name, args, kwargs)`` to ``ask`` while ``active[0]`` holds.

    Raises (when called)
    --------------------
    StandInExpired
        After the call it was bound for has ended.
    """

    def stand_in(*args, **kwargs):
        if not active[0]:
            raise StandInExpired(f"{name}() was replaced for one check only and cannot be called any more")
        return ask(name, args, kwargs)

    stand_in.__name__ = stand_in.__qualname__ = name
    return stand_in


@contextmanager
def bound(namespace: dict, names: Iterable[str], ask: Callable):
    """Bind each of ``names`` in ``namespace`` to a stand-in that asks ``ask``, until the block ends.

    Afterwards the names are bound to what they were before (or unbound again), whatever the
    block did to them, and the stand-ins are expired.
    """
    names = tuple(dict.fromkeys(str(name) for name in names))
    active = [True]
    saved = {name: namespace.get(name, _MISSING) for name in names}
    for name in names:
        namespace[name] = make_stand_in(name, ask, active)
    try:
        yield
    finally:
        active[0] = False
        for name, value in saved.items():
            if value is _MISSING:
                namespace.pop(name, None)
            else:
                namespace[name] = value
