"""Grade a fixed corpus through attn-course, nbgrader and otter, and print the scores side by side.

For every assignment of course.yml (or those named): the solution, nbgrader's release stub, every
buggy student of the corpus (at least five), the one-line reference import (``trudy``) and an
attack, each graded by ``attn-course grade --seed <the export's seed>``, by one ``nbgrader
autograde`` of them all, and by ``otter run``, in this venv's kernel, where ``attn_reference`` is
importable (the exports' cells do not need it). nbgrader and otter must agree to 1e-4 with
``grade``'s score less the credit it carries forward from a wrong upstream function (the kernel
cannot carry it, docs/threat-model.md): for honest notebooks that is ``grade``'s score itself;
the reference import must score what ``grade`` gives it. Reruns: ``grade`` and ``nbgrader
autograde`` run twice, otter twice on the first buggy notebook; every rerun must give the same
scores. Attacks are shown, not hidden: only attn-course runs student code in a sandbox.
``otter run`` has no timeout and runs the whole notebook: a student whose experiment cell never
ends would hold it forever, so each otter run is bounded by :data:`OTTER_BOUND_S` and one that
does not finish is a row that says so (also shown, not hidden), not a disagreement.

    .venv/bin/python benchmarks/export_agreement.py [ASSIGNMENT_ID ...]
"""

from __future__ import annotations

import math
import sys
import tempfile
from pathlib import Path

from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.export import TARGETS, ExportContext, agreement, export_to
from autograder.export.corpus import ATTACK, CHEAT, STUB, corpus

TOLERANCE = 1e-4
#: Seconds one ``otter run`` may take here (it takes about 10 s per notebook).
OTTER_BOUND_S = 90.0


def grade_assignment(course, assignment_id: str, work: Path) -> list[dict]:
    """One row per corpus notebook: scores and seconds through each grader."""
    assignment = course.assignment(assignment_id)
    context = ExportContext(course, DEFAULT_COURSE_FILE, (assignment_id,))
    spec = context.spec(assignment_id)
    export_to(TARGETS["nbgrader"], context, work / "nbgrader")
    export_to(TARGETS["otter"], context, work / "otter")
    release = agreement.nbgrader_release(work / "nbgrader", assignment_id) / assignment.notebook
    files, kinds = {}, {}
    for entry in corpus(course, assignment_id, spec, cheat=True):
        path = work / "notebooks" / entry.name / assignment.notebook
        path.parent.mkdir(parents=True)
        path.write_bytes(release.read_bytes()) if entry.kind == STUB else path.write_text(entry.notebook, encoding="utf-8")
        files[entry.name], kinds[entry.name] = path, (entry.kind, entry.what)
    nbgrader = agreement.nbgrader_grades(work / "nbgrader", assignment_id, files, assignment.notebook)
    nbgrader_again = agreement.nbgrader_grades(work / "nbgrader", assignment_id, files, assignment.notebook)
    zip_path = work / "otter" / assignment_id / "autograder.zip"
    rows = []
    for name, path in files.items():
        ours = agreement.ours(assignment_id, path, spec.seed, DEFAULT_COURSE_FILE)
        again = [agreement.ours(assignment_id, path, spec.seed, DEFAULT_COURSE_FILE).score, nbgrader_again[name].score]
        theirs = _otter(zip_path, path, work)
        if kinds[name][0] not in (STUB, CHEAT, ATTACK) and name != "solution" and not any(r["rerun_otter"] for r in rows):
            again.append(_otter(zip_path, path, work).score)
        expected = ours.score if kinds[name][0] == CHEAT else ours.in_kernel
        rows.append({"assignment": assignment_id, "name": name, "kind": kinds[name][0], "what": kinds[name][1],
                     "ours": ours, "nbgrader": nbgrader[name], "otter": theirs, "agree": agrees(expected, nbgrader[name].score,
                                                                                               theirs.score),
                     "expected": expected, "rerun_otter": len(again) == 3,
                     "reruns": again[:2] == [ours.score, nbgrader[name].score] and again[2:] in ([], [theirs.score])})
    return rows


def _otter(zip_path: Path, path: Path, work: Path) -> agreement.Graded:
    try:
        return agreement.otter(zip_path, path, work, OTTER_BOUND_S)
    except agreement.ToolTimeout:  # otter has no timeout of its own; a failure still stops the script
        return agreement.Graded(float("nan"), OTTER_BOUND_S)


def agrees(ours: float, *theirs: float) -> bool:
    """Whether every other score is within :data:`TOLERANCE` of ours (a NaN, an unfinished run, never is)."""
    return all(abs(ours - other) <= TOLERANCE for other in theirs)


def unfinished(row: dict) -> bool:
    """Whether otter did not finish the notebook within its bound (its score is NaN)."""
    return math.isnan(row["otter"].score)


def verdict(row: dict) -> str:
    """The table's last column: agreement, or why not."""
    if row["agree"]:
        return "yes"
    if unfinished(row):
        return f"no (otter did not finish in {OTTER_BOUND_S:g} s: it has no timeout)"
    return "no (attack: only ours is sandboxed)" if row["kind"] == ATTACK else "NO"


def print_table(rows: list[dict], header: bool = True) -> None:
    if header:
        print(f"{'assignment':<22} {'notebook':<9} {'kind':<8} {'ours':>8} {'no carry':>8} {'nbgrader':>9} {'otter':>8}   "
              f"{'s ours':>6} {'s nbg':>6} {'s otter':>7}  rerun  agree")
    for r in rows:
        mark = verdict(r)
        print(f"{r['assignment']:<22} {r['name']:<9} {r['kind']:<8} {r['ours'].score:>8.4f} {r['ours'].in_kernel:>8.4f} "
              f"{r['nbgrader'].score:>9.4f} {r['otter'].score:>8.4f}   {r['ours'].seconds:>6.1f} {r['nbgrader'].seconds:>6.1f} "
              f"{r['otter'].seconds:>7.1f}  {'same' if r['reruns'] else 'DIFF':<5}  {mark}")


def main(argv: list[str]) -> int:
    course = load_course()
    ids = argv or [a.id for a in course.assignments]
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for assignment_id in ids:  # each assignment's rows as soon as they are in (a run takes minutes per assignment)
            rows += grade_assignment(course, assignment_id, Path(scratch) / assignment_id)
            print_table([r for r in rows if r["assignment"] == assignment_id], header=assignment_id == ids[0])
            sys.stdout.flush()
    disagreements = [r for r in rows if not r["agree"] and r["kind"] != ATTACK and not unfinished(r)]
    honest = [r for r in rows if r["kind"] in ("solution", STUB)]
    print(f"\n{len(rows)} notebooks; {sum(r['agree'] for r in rows)} agree to {TOLERANCE:g} "
          f"(honest: {sum(r['agree'] and r['ours'].score == r['ours'].in_kernel for r in honest)}/{len(honest)} with grade's "
          f"own score); {sum(r['reruns'] for r in rows)}/{len(rows)} reruns identical; "
          f"{sum(map(unfinished, rows))} that otter did not finish; "
          f"{len(disagreements)} disagreements outside attacks (nbgrader seconds: its autograde time / notebooks)")
    return 1 if disagreements or not all(r["reruns"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
