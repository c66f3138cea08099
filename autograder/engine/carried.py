"""Error carried forward at the level of a run: upstream tests first, and carried passes settled.

Two rules make a carried pass (a check a function passed only when its graded upstream
functions were answered by the reference; see :mod:`autograder.grade.carry`) sound:

* **order**: every test of a function runs after every test of the functions it calls
  (:func:`in_dependency_order`), so nothing a re-check lets the student's code see of the
  reference can serve the upstream function's own tests, which are over by then;
* **settling**: a carried pass keeps its points only when one of those upstream functions
  fails one of its own tests in the same run (:func:`settle`). Otherwise the student's
  upstream passes its tests yet makes this function wrong, and the check fails, saying so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TypeVar

from autograder.engine.outcome import MISMATCH
from autograder.engine.results import FAILED, TestResult
from autograder.i18n import msg

T = TypeVar("T")


def levels(upstream: Mapping[str, Iterable[str]]) -> dict[str, int]:
    """How deep each function sits in the call graph: 0 for one calling no graded function, else
    one more than the deepest function it calls (a cycle is cut where it closes)."""
    found: dict[str, int] = {}

    def level(name: str, path: frozenset) -> int:
        if name in found:
            return found[name]
        callees = [callee for callee in upstream.get(name, ()) if callee != name and callee not in path]
        value = 1 + max((level(callee, path | {name}) for callee in callees), default=-1)
        found[name] = value
        return value

    for name in upstream:
        level(name, frozenset())
    return found


def in_dependency_order(items: list[T], question_of: Callable[[T], str], upstream: Mapping[str, Iterable[str]]) -> list[T]:
    """``items`` stably reordered so that each function's tests come after those of the functions it calls."""
    depth = levels(upstream)
    return sorted(items, key=lambda item: depth.get(question_of(item), 0))


def settle(results: list[TestResult]) -> list[TestResult]:
    """Each carried pass kept only when one of its upstream functions failed a test of its own in this run."""
    failing = {result.question for result in results if not result.passed}
    return [_settled(result, failing) for result in results]


def _settled(result: TestResult, failing: set[str]) -> TestResult:
    if not result.passed or not result.carried_from or failing & set(result.carried_from):
        return result
    upstream = ", ".join(f"{name}()" for name in result.carried_from)
    message = msg("{function}() is right here only with a correct {upstream}; yours passes its own tests "
                  "but gives other results on what {function}() passes it", function=result.question, upstream=upstream)
    return replace(result, status=FAILED, message=message, kind=MISMATCH, carried_from=())
