"""One diagnosis per failed question, chosen by evidence, and the few failing cases shown for it.

A question's failed tests each carry the diagnoses of their own call. The student reads one:
:func:`chosen_diagnoses` keeps the named bug found on the most failed tests (the first found
on a tie), and suppresses the others; a question where no bug is named keeps what was
observed instead (how the output relates to the expected one, where it fails), once each: what most
failed tests observed, so the few tests a seed happens to fail change it least.
The failing cases shown beside it are chosen by :mod:`autograder.report.cases`.
"""

from __future__ import annotations

from collections import Counter

#: Prefix of the diagnoses that state what is observed (a relation, a failing condition) rather than name a bug.
OBSERVED_PREFIX = "observed."
#: Failing cases shown per question in a short report.
SHOWN_CASES = 3


def is_observed(bug_id: str) -> bool:
    """Whether a diagnosis states an observation rather than names a bug."""
    return bug_id.startswith(OBSERVED_PREFIX)


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
    return hints
