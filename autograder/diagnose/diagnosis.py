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
from autograder.diagnose.confirm import confirmed
from autograder.diagnose.edited import edit_findings
from autograder.diagnose.localise import localisation
from autograder.diagnose.relate import relation
from autograder.diagnose.probes import FALLBACK_PROBES, PROBES
from autograder.diagnose.probes.finding import Finding
from autograder.diagnose.probes.scale import undecided_scales
from autograder.diagnose.probes.softmax import AMBIGUOUS_SHIFTS, shift_is_ambiguous
from autograder.diagnose.registry import bug
from autograder.engine.results import Diagnosis
from autograder.i18n import msg


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
    """What the probes and then ``finders`` recognise in a failed call, most specific first: only the findings
    that hold on the call's re-draws and agree with its localisation (:mod:`.confirm`)."""
    found = [(finding, probe) for probe in (*PROBES, *finders) for finding in probe(case)]
    ambiguous = shift_is_ambiguous(case)
    if ambiguous:  # two shifts explain the call alike: neither is named, nor a vaguer guess (the shift explains it)
        found = [(f, p) for f, p in found if f.id.rsplit(".", 1)[-1] not in AMBIGUOUS_SHIFTS]
    confirmed_ones = confirmed(case, found)
    kept = undecided_scales(case, confirmed_ones)
    if not kept and not ambiguous and kept == confirmed_ones:  # two scales left undecided: no vaguer guess either
        kept = confirmed(case, edit_findings(case))
    if not kept and not ambiguous and not confirmed_ones:
        kept = confirmed(case, [(finding, probe) for probe in FALLBACK_PROBES for finding in probe(case)])
    return kept


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
    named = explain(case.function, findings_for(case, finders))
    return named or observed(case)


#: Ids of what is observed when no bug is named: a relation of the output to the expected one, and a condition.
RELATION_ID = "observed.relation"
CONDITION_ID = "observed.condition"


def observed(case: Case) -> tuple[Diagnosis, ...]:
    """What is true of a failed call whatever its bug: how its output relates to the expected one, and where it fails."""
    found = []
    related = relation(case)
    if related is not None:
        found.append(Diagnosis(RELATION_ID, msg("Compared with the expected result: {relation}.", relation=related)))
    located = localisation(case)
    if located is not None:
        found.append(Diagnosis(CONDITION_ID, located))
    return tuple(found)



def observed_shape(case: Case) -> tuple[Diagnosis, ...]:
    """What a result with the right values in a shape with a size-1 axis too many or too few shows: that axis, named
    (no call into the student's function); another shape change as a relation."""
    outputs = case.contract.outputs
    for index, (got, want) in enumerate(zip(getattr(case.student, "arrays", ()), case.reference.arrays)):
        if got.shape == want.shape or abs(got.ndim - want.ndim) != 1:
            continue
        facts = {"part": outputs[index].name if index < len(outputs) else str(index), "shape": str(got.shape),
                 "expected": str(want.shape)}
        return explain(case.function, [Finding("call.extra_unit_axis" if got.ndim > want.ndim else "call.missing_unit_axis",
                                               facts)])
    related = relation(case)
    return () if related is None else (Diagnosis(RELATION_ID, msg("Compared with the expected result: {relation}.",
                                                                    relation=related)),)
