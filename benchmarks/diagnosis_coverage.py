"""Grade the fresh-mistakes corpus and measure what the grader catches, names and charges.

Run: ``.venv/bin/python benchmarks/diagnosis_coverage.py [--seeds 3] [--corpus DIR] [-v]``

``--corpus`` takes a folder with ``manifest.yml`` (and ``labels.yml``) or an outside corpus with
``manifest.json`` (entries ``{assignment, file, function, bug}``, no labels): there "named" needs a
reader, so the benchmark counts what it can (caught, a specific diagnosis, a stated condition or
relation only) and prints each caught function's diagnoses beside the corpus's description of its bug.

The corpus (``benchmarks/fresh_mistakes/``) was written blind to the grader: realistic
student modules, each with one mistake (or two, one calling the other), and correct
modules in unusual styles. ``manifest.yml`` says which functions are wrong; ``labels.yml``,
written by someone who read only the manifest and the registry of bug ids, says which ids
name each mistake correctly. Every entry is graded through the real pipeline (sandbox
included), on several seeds. Printed figures:

- caught: the buggy function's question lost points;
- named: a diagnosis of that question is one of the acceptable ids;
- misnamed: the question got diagnoses, none of them acceptable;
- charged elsewhere: a question whose own code is right lost points (error not carried forward);
- correct entries: full marks and no diagnosis at all;
- score spread: the largest difference of one entry's score across seeds, against the
  weight of the heaviest single test.

- report lines: the printed lines of a one-bug entry's failed question (its line, diagnosis,
  cases, counts, tolerance), median and longest, per assignment and for the corpus.

Targets (the fairness issue): named >= 70 % of the buggy functions, no diagnosis on a
correct entry, nothing charged elsewhere, spread within one test's weight, a median report
of at most 10 lines. The exit status is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from coverage_figures import assignment_rows, load_corpus, median_lines, report_lines, specific, unlabelled_listing  # noqa: E402
from autograder.config import load_course  # noqa: E402
from autograder.grade.api import grade_submission  # noqa: E402
from autograder.report.text import question_diagnoses  # noqa: E402
from autograder.sandbox.spares import keep_spares  # noqa: E402

CORPUS = Path(__file__).resolve().parent / "fresh_mistakes"
NAMED_TARGET = 0.70
#: The issue's bound on the median report of a one-bug submission (its failed question's lines, as printed).
MEDIAN_LINES_TARGET = 10
#: Seeds of the runs; each entry is graded once per seed.
BASE_SEED = 1000


@dataclass
class Outcome:
    """What grading one corpus entry on several seeds showed."""

    file: str
    buggy: tuple[str, ...]
    scores: list[float] = field(default_factory=list)
    lost: dict[str, float] = field(default_factory=dict)  # question -> largest loss over seeds
    diagnoses: dict[str, set[str]] = field(default_factory=dict)  # question -> ids over seeds
    carried: set[str] = field(default_factory=set)
    heaviest: float = 0.0  # points of the heaviest single test: the allowed spread across seeds
    assignment: str = ""
    bug: str = ""
    lines: list[int] = field(default_factory=list)  # report lines of the buggy questions, per seed
    shown: list[dict] = field(default_factory=list)  # per seed: question -> the diagnosis ids the student reads

    @property
    def spread(self) -> float:
        return max(self.scores) - min(self.scores)


def defined_functions(path: Path) -> set[str] | None:
    """The functions a corpus module defines (None for a notebook: all count)."""
    if path.suffix != ".py":
        return None
    return {node.name for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(node, ast.FunctionDef)}


def grade_entry(course, entry: dict, seeds: list[int], corpus: Path) -> Outcome:
    """The entry graded on every seed; a question the corpus file does not define (one added to the course after
    the corpus was written) is left out."""
    outcome = Outcome(entry["file"], tuple(entry.get("buggy_functions") or ()), assignment=entry["assignment"],
                      bug=str(entry.get("bug") or ""))
    defined = defined_functions(corpus / entry["file"])
    for seed in seeds:
        result = grade_submission(course, entry["assignment"], corpus / entry["file"], seed=seed)
        outcome.scores.append(result.score)
        if outcome.buggy:
            outcome.lines.append(report_lines(result, outcome.buggy))
        outcome.shown.append({q.function: frozenset(question_diagnoses(q)) for q in result.questions})
        for question in result.questions:
            if defined is not None and question.function not in defined:
                continue
            lost = question.points - question.score
            outcome.lost[question.function] = max(outcome.lost.get(question.function, 0.0), lost)
            ids = set(question_diagnoses(question))  # what the student reads: the one chosen diagnosis
            outcome.diagnoses.setdefault(question.function, set()).update(ids)
            outcome.carried.update(f for test in question.tests for f in test.carried_from)
            total = sum(test.weight for test in question.tests)
            if total:
                outcome.heaviest = max(outcome.heaviest, question.points * max(t.weight for t in question.tests) / total)
    return outcome


def report(outcomes: list[Outcome], labels: dict, verbose: bool) -> dict:
    totals = {"buggy": 0, "caught": 0, "named": 0, "misnamed": 0, "charged": 0, "ok": 0, "ok_clean": 0}
    for outcome in outcomes:
        expected = labels.get(outcome.file, {})
        if not outcome.buggy:
            totals["ok"] += 1
            clean = all(v == 0 for v in outcome.lost.values()) and not any(outcome.diagnoses.values())
            totals["ok_clean"] += clean
            if verbose or not clean:
                print(f"  {'ok ' if clean else 'BAD'} {outcome.file}: lost {outcome.lost} diagnoses {outcome.diagnoses}")
            continue
        for function in outcome.buggy:
            totals["buggy"] += 1
            caught = outcome.lost.get(function, 0) > 0
            found = outcome.diagnoses.get(function, set())
            acceptable = set(expected.get(function, ()))
            named = bool(specific(found) & acceptable)
            totals["caught"] += caught
            totals["named"] += named
            totals["misnamed"] += bool(specific(found)) and not named
            if labels and (verbose or not named):
                mark = "named" if named else ("MISNAMED" if specific(found) else ("caught" if caught else "MISSED"))
                print(f"  {mark:<8} {outcome.file} [{function}]: got {sorted(found)} want {sorted(acceptable)}")
        charged = [q for q, lost in outcome.lost.items() if lost > 0 and q not in outcome.buggy]
        if charged:
            totals["charged"] += 1
            print(f"  CHARGED  {outcome.file}: {charged} lost points (buggy: {outcome.buggy})")
    return totals


def varying_diagnoses(shown: list[dict]) -> dict[str, list]:
    """The questions whose diagnosis differs between seeds: question -> the ids of each seed."""
    questions = {q for seen in shown for q in seen}
    return {q: [sorted(seen.get(q, ())) for seen in shown] for q in sorted(questions)
            if len({seen.get(q, frozenset()) for seen in shown}) > 1}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="grading runs per entry, each with its own seed")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("-v", "--verbose", action="store_true", help="list every entry, not only the misses")
    args = parser.parse_args(argv)
    course = load_course()
    manifest, labels, labelled = load_corpus(args.corpus)
    keep_spares(True)
    seeds = [BASE_SEED + i for i in range(args.seeds)]
    outcomes = [grade_entry(course, entry, seeds, args.corpus) for entry in manifest]
    totals = report(outcomes, labels, args.verbose)
    if not labelled:
        print("\n".join(unlabelled_listing(outcomes)))
    print("\nper assignment:\n" + "\n".join(assignment_rows(outcomes, labels, labelled)))
    median, longest = median_lines(outcomes)
    print(f"report lines of a one-bug submission's failed question in {args.corpus.name}: median {median:g}, longest "
          f"{longest} (target <= {MEDIAN_LINES_TARGET})")
    spread_bad = [o for o in outcomes if o.spread > o.heaviest + 1e-9]
    buggy = max(totals["buggy"], 1)
    print(f"\n{len(outcomes)} entries x {args.seeds} seeds")
    named = (f"named {totals['named']} ({totals['named'] / buggy:.0%}); misnamed {totals['misnamed']}" if labelled
             else "named: no labels, judge the listing above")
    print(f"buggy functions: {totals['buggy']}; caught {totals['caught']} ({totals['caught'] / buggy:.0%}); {named}")
    print(f"entries charging a right question: {totals['charged']}")
    print(f"correct entries with full marks and no diagnosis: {totals['ok_clean']}/{totals['ok']}")
    varying = {o.file: differing for o in outcomes if (differing := varying_diagnoses(o.shown))}
    print(f"entries whose diagnosis varies across seeds: {len(varying)}"
          + "".join(f"\n  {file}: {differing}" for file, differing in varying.items()))
    print(f"entries whose score varies by more than one test across seeds: {len(spread_bad)}"
          + "".join(f"\n  {o.file}: scores {o.scores}" for o in spread_bad))
    named_share = totals["named"] / buggy if labelled else 1.0  # without labels "named" is for a reader to judge
    missed = (named_share < NAMED_TARGET or totals["ok_clean"] < totals["ok"] or totals["charged"] or spread_bad
              or median > MEDIAN_LINES_TARGET)
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
