"""One diagnosis per failed question, chosen by evidence, and the few failing cases shown for it.

A question's failed tests each carry the diagnoses of their own call. The student reads one:
:func:`chosen_diagnoses` keeps the named bug found on the most failed tests (the first found
on a tie), and suppresses the others; a question where no bug is named keeps what was
observed instead (how the output relates to the expected one, where it fails), once each: what most
failed tests observed, so the few tests a seed happens to fail change it least; a relation only when at least
half of the failed tests that observed something state that very one.
The failing cases shown beside it are chosen by :mod:`autograder.report.cases`.
"""

from __future__ import annotations

import re
from collections import Counter

#: Prefix of the diagnoses that state what is observed (a relation, a failing condition) rather than name a bug.
OBSERVED_PREFIX = "observed."
#: The observation that relates a result to the expected one: shown only when at least half of the failed tests that
#: observed something state it, word for word.
RELATION = OBSERVED_PREFIX + "relation"
#: Failing cases shown per question in a short report.
SHOWN_CASES = 3


def is_observed(bug_id: str) -> bool:
    """Whether a diagnosis states an observation rather than names a bug."""
    return bug_id.startswith(OBSERVED_PREFIX)


#: A shape such as ``(4, 7)`` and a size such as ``= 7`` in a hint: what differs between calls that say one thing.
CALL_SIZES = re.compile(r"\(\d+(?:, \d+)*,?\)|= \d+\b")


def _alike(texts: Counter, text: str) -> int:
    """How many failed tests state ``text``, counting as one statement those that differ only in the call's shapes
    and sizes ("shape (4, 7) where (4, 9)" and "shape (3, 5) where (3, 8)")."""
    shape_free = CALL_SIZES.sub("#", text)
    return sum(count for other, count in texts.items() if CALL_SIZES.sub("#", other) == shape_free)


def chosen_diagnoses(tests) -> dict[str, str]:
    """``{id: hint}``: the one named bug best supported over ``tests`` (failed tests), else their observations.

    Parameters
    ----------
    tests : iterable of TestResult
        A question's failed tests, in order.

    Returns
    -------
    dict
        One entry for a named bug; else one per kind of observation (its first hint).
    """
    counts: Counter = Counter()
    said: dict[str, Counter] = {}
    for test in tests:
        for diagnosis in {d.id: d for d in test.diagnoses}.values():
            counts[diagnosis.id] += 1
            said.setdefault(diagnosis.id, Counter())[diagnosis.hint] += 1
    hints = {bug: max(texts, key=texts.__getitem__) for bug, texts in said.items()}  # the most said; the first of equals
    named = [bug for bug in hints if not is_observed(bug)]
    if named:
        best = max(named, key=lambda bug: counts[bug])  # max keeps the first of equals: the first found
        return {best: hints[best]}
    observing = sum(1 for test in tests if any(is_observed(d.id) for d in test.diagnoses))
    if RELATION in said and 2 * _alike(said[RELATION], hints[RELATION]) < observing:
        del hints[RELATION]  # a relation most failed calls do not show is no relation of the function
    return hints
