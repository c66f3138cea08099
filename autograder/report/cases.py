"""The failing cases a report shows for a question: a few that differ, the others counted, tolerances said once.

A question's failed tests are first grouped by their problem (the message without the call
it came from): tests that fail with the same problem, an input written in place say, are one
case shown once with their count. :func:`failing_cases` keeps at most
:data:`~autograder.report.chosen.SHOWN_CASES` cases that differ from each other (another way of
failing, another test), and counts the others: those that fail the *same way* as a case shown
(the same kind of failure, of the same output, with the same diagnoses) apart from those that
fail otherwise. The tolerance of a comparison is a fact of its own in the message
(:mod:`autograder.judge.messages`): the one most cases shown use is taken out of their lines,
for the report to say it once; a case compared with another (float32 input) keeps its own. Everything here is a pure function of the record.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from autograder.i18n import Message
from autograder.report.chosen import SHOWN_CASES

#: Where a student's traceback starts in a failure message (after what the test called).
TRACEBACK = "Traceback (most recent call last):"
#: The template of a failure raised by a hidden test's call: what was called, and the problem.
CALLED = "{what}: {problem}"
#: The facts of a comparison's tolerance (its own message in a failure message).
TOLERANCE_FACTS = frozenset({"rtol", "atol"})
_DIGITS = re.compile(r"\d")


@dataclass(frozen=True)
class Case:
    """Failed tests shown as one: their message (one test's whole message, or the problem many share)."""

    tests: tuple
    message: Message | str


@dataclass(frozen=True)
class Cases:
    """What a report shows of a question's failures.

    Attributes
    ----------
    shown : tuple of Case
        The cases shown, in the order of the tests.
    same : int
        Further failed tests that fail the same way as a case shown.
    other : int
        Further failed tests that fail otherwise.
    tolerances : tuple of (str, str)
        The ``(rtol, atol)`` taken out of the shown messages (at most one: the one most of them use; a case
        compared with another keeps its own in its line), for the report to say once.
    """

    shown: tuple[Case, ...]
    same: int = 0
    other: int = 0
    tolerances: tuple[tuple[str, str], ...] = ()


def _is_tolerance(value) -> bool:
    return isinstance(value, Message) and set(value.facts) == TOLERANCE_FACTS


def _tolerance(value) -> tuple[str, str]:
    return str(value.facts["rtol"]), str(value.facts["atol"])


def without_tolerance(message: Message | str, only: tuple[str, str] | None = None) -> tuple[Message | str, frozenset]:
    """``message`` with every tolerance in it (or every one equal to ``only``) taken out, and the ``(rtol, atol)``
    taken (a text stays as it is)."""
    if not isinstance(message, Message):
        return message, frozenset()
    facts, taken = {}, set()
    for name, value in message.facts.items():
        if _is_tolerance(value) and only in (None, _tolerance(value)):
            facts[name] = ""
            taken.add(_tolerance(value))
        else:
            facts[name], inner = without_tolerance(value, only)
            taken |= inner
    return (Message(message.msgid, facts, message.plural), frozenset(taken)) if taken else (message, frozenset())


def problem(message: Message | str) -> Message | str:
    """What went wrong, without the call it came from (the whole message when it names no call)."""
    if isinstance(message, Message) and message.msgid == CALLED:
        return message.facts["problem"]
    return message


def same_failure(text: str) -> str:
    """What makes two failures the same: the text, or only its traceback when it holds one."""
    start = text.find(TRACEBACK)
    return text[start:] if start >= 0 else text


def _shape(value) -> object:
    """A message's form without its numbers: templates, and the texts free of digits (names of outputs, arguments)."""
    if isinstance(value, Message):
        return value.msgid, tuple((name, _shape(fact)) for name, fact in sorted(value.facts.items())
                                  if isinstance(fact, Message) or not _DIGITS.search(str(fact)))
    text = str(value)
    if TRACEBACK in text:
        lines = [line.strip() for line in same_failure(text).splitlines() if line.strip()]
        frames = [line for line in lines if line.startswith("File ")]
        return tuple(frames[-1:]), lines[-1].split(":")[0] if lines else ""
    return _DIGITS.sub("#", text)


def failure_way(test) -> tuple:
    """How a test failed, whatever the inputs: its kind, its diagnoses, and its problem's form (which output, how)."""
    return test.kind, tuple(sorted({d.id for d in test.diagnoses})), _shape(problem(test.message))


def _base(test) -> str:
    """The test a parametrised case belongs to (``test_heads[2]`` -> ``test_heads``)."""
    return test.name.split("[")[0]


def grouped(tests) -> list[list]:
    """Failed tests grouped by identical problem (or identical traceback), in the order of their first test."""
    groups: dict[str, list] = {}
    for test in tests:
        groups.setdefault(same_failure(str(problem(test.message))), []).append(test)
    return list(groups.values())


def _differs(group: list, picked: list[list], new_way: bool, new_test: bool) -> bool:
    """Whether ``group`` shows something the ``picked`` groups do not: another way of failing, another test, or both.

    A case that fails the same way as one picked is shown for its other test only when it takes one line (a
    traceback from the same place tells nothing new).
    """
    test = group[0]
    same_way = failure_way(test) in {failure_way(g[0]) for g in picked}
    if (new_way and same_way) or (new_test and _base(test) in {_base(g[0]) for g in picked}):
        return False
    return not same_way or "\n" not in str(test.message)


def _pick(groups: list[list], shown: int) -> list[int]:
    """Indices of at most ``shown`` groups that differ: a new way and a new test first, then a new way, then a new test."""
    picked: list[int] = []
    for new_way, new_test in ((True, True), (True, False), (False, True)):
        for index, group in enumerate(groups):
            if len(picked) < shown and index not in picked and _differs(group, [groups[i] for i in picked], new_way, new_test):
                picked.append(index)
    return sorted(picked)


def _case(group: list, strip: tuple[str, str] | None) -> Case:
    message = group[0].message if len(group) == 1 else problem(group[0].message)
    return Case(tuple(group), without_tolerance(message, strip)[0] if strip else message)


def _main_tolerance(groups: list[list]) -> tuple[str, str] | None:
    """The tolerance most of ``groups`` (the cases shown) are compared with (the first of equals); None for none."""
    counts: Counter = Counter(t for group in groups for t in without_tolerance(group[0].message)[1])
    return max(counts, key=counts.__getitem__) if counts else None


def failing_cases(tests, verbose: bool = False, shown: int = SHOWN_CASES) -> Cases:
    """The cases a report shows of ``tests`` (a question's failed tests): a few that differ, or all (``verbose``).

    Parameters
    ----------
    tests : iterable of TestResult
        The failed tests, in order.
    verbose : bool, optional
        Every case, none counted.
    shown : int, optional
        The most cases shown when not ``verbose``.

    Returns
    -------
    Cases
        The cases shown (the tolerance most use taken out), and how many tests more fail, the same way as a
        case shown or otherwise.
    """
    groups = grouped(tests)
    picked = list(range(len(groups))) if verbose else _pick(groups, shown)
    kept = [groups[i] for i in picked]
    main = _main_tolerance(kept)
    ways = {failure_way(test) for group in kept for test in group}
    rest = [test for i, group in enumerate(groups) if i not in picked for test in group]
    same = sum(failure_way(test) in ways for test in rest)
    return Cases(tuple(_case(group, main) for group in kept), same, len(rest) - same, (main,) if main else ())
