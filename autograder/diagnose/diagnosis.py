"""Name the bug behind a failed call: behavioural probes first, then the mutant catalog.

:func:`diagnose` runs the probes (:mod:`.probes`) and the finders it is given (the grader gives
the course's mutant catalog, :func:`autograder.mutants.replay.replay_mutants`) on a failed
:class:`~.case.Case`, and turns what they found into
:class:`~autograder.engine.results.Diagnosis` objects whose hints come from the one
registry of bugs (:mod:`.registry`).
"""

from __future__ import annotations

from typing import Callable, Sequence

from autograder.diagnose.case import Case
from autograder.diagnose.probes import FALLBACK_PROBES, PROBES
from autograder.diagnose.probes.finding import Finding
from autograder.diagnose.registry import bug
from autograder.engine.results import Diagnosis


def explain(function: str, findings: list[Finding]) -> tuple[Diagnosis, ...]:
    """Diagnoses for findings: the first finding of each id, its hint filled with its facts."""
    seen: dict[str, Diagnosis] = {}
    for finding in findings:
        if finding.id not in seen:
            seen[finding.id] = Diagnosis(finding.id, bug(finding.id).say(function=function, **finding.facts))
    return tuple(seen.values())


#: Something that names bugs in a failed call beside the probes (the mutant catalog's replay).
Finder = Callable[[Case], list[Finding]]


def findings_for(case: Case, finders: Sequence[Finder] = ()) -> list[Finding]:
    """What the probes and then ``finders`` recognise in a failed call, most specific first."""
    found = [finding for probe in PROBES for finding in probe(case)]
    found += [finding for finder in finders for finding in finder(case)]
    if not found:
        found = [finding for probe in FALLBACK_PROBES for finding in probe(case)]
    return found


def diagnose(case: Case, finders: Sequence[Finder] = ()) -> tuple[Diagnosis, ...]:
    """The named bugs that explain a failed call (empty when none does, or when the result is right).

    Parameters
    ----------
    case : Case
        The failed call.
    finders : sequence of callables
        Further finders run after the probes, e.g. the mutant catalog's replay.
    """
    if case.matches_reference(case.student):
        return ()
    return explain(case.function, findings_for(case, finders))

