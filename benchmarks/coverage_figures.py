"""Figures of the diagnosis benchmark that do not depend on labels: corpora, report length, per-assignment rows.

:func:`load_corpus` reads either corpus format (``manifest.yml`` + ``labels.yml``, or an outside
corpus's ``manifest.json``); :func:`report_lines` counts what a student reads about the buggy
questions; :func:`by_assignment` groups outcomes for the per-assignment table.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import yaml

from autograder.report.text import question_feedback

#: Prefixes of diagnoses that state a failing condition or an output relation rather than name a bug.
STATED_PREFIXES = ("observed.",)


def load_corpus(corpus: Path) -> tuple[list[dict], dict, bool]:
    """(entries, labels by file, whether the corpus has labels).

    Entries of a ``manifest.json`` corpus get ``buggy_functions`` from their ``function`` field.

    Raises
    ------
    FileNotFoundError
        When the folder holds neither manifest.
    """
    if (corpus / "manifest.yml").exists():
        manifest = yaml.safe_load((corpus / "manifest.yml").read_text(encoding="utf-8"))
    else:
        manifest = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
        for entry in manifest:
            entry.setdefault("buggy_functions", [entry["function"]] if entry.get("function") else [])
    labels_path = corpus / "labels.yml"
    if not labels_path.exists():
        return manifest, {}, False
    labels = {e["file"]: e.get("expected") or {} for e in yaml.safe_load(labels_path.read_text(encoding="utf-8"))}
    return manifest, labels, True


def report_lines(result, functions) -> int:
    """Lines a student reads about the questions of ``functions``: the question's line and its feedback as printed
    (a traceback counts all its lines; the tolerance line is counted with each question that shows one)."""
    return sum(1 + sum(line.count("\n") + 1 for line in question_feedback(q))
               for q in result.questions if q.function in functions and q.score < q.points)


def median_lines(outcomes) -> tuple[float, int]:
    """(median, largest) report length over the one-bug entries that lost points."""
    lengths = [max(o.lines) for o in outcomes if len(o.buggy) == 1 and o.lines and max(o.lines) > 0]
    return (statistics.median(lengths), max(lengths)) if lengths else (0.0, 0)


def specific(ids) -> set[str]:
    """The diagnoses that name a bug (not only a stated condition or relation)."""
    return {i for i in ids if not i.startswith(STATED_PREFIXES)}


def stated(ids) -> set[str]:
    """The diagnoses that only state a condition or a relation."""
    return {i for i in ids if i.startswith(STATED_PREFIXES)}


def by_assignment(outcomes) -> dict[str, list]:
    """Outcomes grouped by assignment, in the order they came."""
    groups: dict[str, list] = {}
    for outcome in outcomes:
        groups.setdefault(outcome.assignment, []).append(outcome)
    return groups


def assignment_rows(outcomes, labels: dict, labelled: bool) -> list[str]:
    """One line per assignment: caught, named (or, without labels, specifically diagnosed), stated only, none."""
    rows = []
    for assignment, group in by_assignment(outcomes).items():
        buggy = [(o, f) for o in group for f in o.buggy]
        caught = [(o, f) for o, f in buggy if o.lost.get(f, 0) > 0]
        named = [(o, f) for o, f in caught if specific(o.diagnoses.get(f, ())) & set(labels.get(o.file, {}).get(f, ()))]
        diagnosed = [(o, f) for o, f in caught if specific(o.diagnoses.get(f, ()))]
        only_stated = [(o, f) for o, f in caught if not specific(o.diagnoses.get(f, ())) and stated(o.diagnoses.get(f, ()))]
        correct = [o for o in group if not o.buggy]
        clean = [o for o in correct if not any(o.lost.values()) and not any(o.diagnoses.values())]
        spared = sum(1 for o in group for q, lost in o.lost.items() if q not in o.buggy and lost == 0)
        others = sum(1 for o in group for q in o.lost if q not in o.buggy)
        figure = f"named {len(named)}" if labelled else f"diagnosed {len(diagnosed)}"
        median, longest = median_lines(group)
        rows.append(f"  {assignment:<22} caught {len(caught)}/{len(buggy)}; {figure}/{len(buggy)}; "
                    f"condition/relation only {len(only_stated)}; nothing {len(caught) - len(diagnosed) - len(only_stated)}; "
                    f"other questions spared {spared}/{others}; correct files clean {len(clean)}/{len(correct)}; "
                    f"one-bug report lines median {median:g}, longest {longest}")
    return rows


def unlabelled_listing(outcomes) -> list[str]:
    """For a corpus without labels: each caught function's diagnoses beside the corpus's description, to judge by reading."""
    lines = []
    for outcome in outcomes:
        for function in outcome.buggy:
            mark = "caught" if outcome.lost.get(function, 0) > 0 else "MISSED"
            lines.append(f"  {mark:<7} {outcome.file} [{function}] {sorted(outcome.diagnoses.get(function, ()))}"
                         f"\n          bug: {outcome.bug[:160]}")
    return lines
