"""The agreement benchmark's verdicts: a notebook otter did not finish is a row that says so, not a disagreement."""

from __future__ import annotations

from autograder.export.agreement import Graded
from tests.benchmarks.scripts import benchmark_script


def _benchmark():
    return benchmark_script("export_agreement")


def _row(kind: str, ours: float, nbgrader: float, otter: float) -> dict:
    agree = _benchmark().agrees(ours, nbgrader, otter)
    return {"kind": kind, "ours": Graded(ours, 0.5), "nbgrader": Graded(nbgrader, 4.0), "otter": Graded(otter, 10.0),
            "agree": agree}


def test_verdicts_tell_agreement_attacks_unfinished_runs_and_real_disagreements():
    bench = _benchmark()
    assert bench.verdict(_row("buggy", 5.0, 5.0, 5.0)) == "yes"
    assert bench.verdict(_row("attack", 0.0, 9.0, 9.0)).startswith("no (attack")
    unfinished = _row("buggy", 8.0, 8.0, float("nan"))
    assert bench.unfinished(unfinished) and "did not finish" in bench.verdict(unfinished)
    assert bench.verdict(_row("buggy", 5.0, 4.0, 5.0)) == "NO"
    assert not bench.unfinished(_row("buggy", 5.0, 4.0, 5.0))


def test_scores_agree_within_the_tolerance_and_never_with_nan():
    bench = _benchmark()
    assert bench.agrees(8.2727, 8.27272, 8.27275)
    assert not bench.agrees(8.0, 8.0, 8.01)
    assert not bench.agrees(8.0, 8.0, float("nan"))
