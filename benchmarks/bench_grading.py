"""Measure grading speed and memory on this machine, print the figures, and exit 1 when one misses its target.

Run: ``.venv/bin/python benchmarks/bench_grading.py [--runs 7] [--batch 200] [--batch-runs 3] [--saves 10]``

Figures, for hw1's whole hidden suite, each against its target (:data:`TARGETS`):
- ``attn-course grade`` of one submission as a whole process: median wall time;
- ``attn-course check`` (public tests): median wall time;
- ``attn-course check --watch``: time of each re-run after a save (the run itself, and from the
  save to the printed report, which adds the wait for the save to settle);
- a batch of N-1 mixed submissions (correct, buggy, broken) with ``-j 2``: submissions per
  second (the median of ``--batch-runs`` batches); then the same batch with one more that never
  ends, in the middle: its throughput (no target: with a 5 s call limit, no batch of 200
  holding a hang can reach 40/s), what the endless
  one cost its job (one call's limit) and what it added to the batch's wall time (at most that);
- memory of one ``grade``: the grader process, and every process of the submission (the
  sandbox) summed, sampled from ``/proc`` (see ``process_tree.py``).
Times on a shared machine vary: the medians of several runs are what to compare.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from autograder import __version__  # noqa: E402
from autograder.build.markers import keep_solutions  # noqa: E402
from autograder.config import load_course  # noqa: E402
from autograder.demo.sample_class import write_sample_class  # noqa: E402
from autograder.paths import ASSIGNMENTS_DIR, SOLUTIONS_DIR  # noqa: E402
from bytecode import compile_project  # noqa: E402
from machine import describe, speed_line, speeds  # noqa: E402
from process_tree import measure  # noqa: E402

CLI = str(Path(sys.executable).with_name("attn-course"))
ASSIGNMENT = "hw1_scaled_attention"
JOBS = 2
#: The sample-class student whose variance experiment never ends (the batch's one timeout).
ENDLESS = "ivy"
#: Seconds a watched run may wait for its report line before the benchmark gives up.
WATCH_DEADLINE_S = 60
#: Seconds between the saves of the watch benchmark (the student typing).
BETWEEN_SAVES_S = 0.5
#: Seconds of slack over one call's limit that the endless submission may cost (start, stop, the other tests).
TIMEOUT_SLACK_S = 1.0


@dataclass(frozen=True)
class Figure:
    """One measured figure and its target (``at_most``: lower is better; else higher is better)."""

    name: str
    value: float
    target: float | None  # None: a figure shown for context, with no target
    unit: str
    at_most: bool = True
    detail: str = ""

    @property
    def met(self) -> bool:
        if self.target is None:
            return True
        return self.value <= self.target if self.at_most else self.value >= self.target

    def line(self) -> str:
        detail = f" ({self.detail})" if self.detail else ""
        if self.target is None:
            return f"{'':>6}  {self.name}: {self.value:.3g} {self.unit}{detail}; no target"
        bound = "<=" if self.at_most else ">="
        verdict = "ok" if self.met else "MISSED"
        return f"{verdict:>6}  {self.name}: {self.value:.3g} {self.unit}{detail}; target {bound} {self.target:g} {self.unit}"


def timed(command: list[str], cwd: Path | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def median_time(command: list[str], runs: int, cwd: Path | None = None) -> tuple[float, list[float]]:
    timed(command, cwd)  # warm the file cache
    times = [timed(command, cwd) for _ in range(runs)]
    return statistics.median(times), times


def spread(times: list[float]) -> str:
    return f"min {min(times):.2f}, max {max(times):.2f}, {len(times)} runs"


def make_batch(course, size: int, out: Path, endless: bool = True) -> Path:
    """``size`` entries cycling through the sample class (solution, stub, buggy and broken entries), one of them endless."""
    sample = out / "sample"
    if not sample.exists():
        write_sample_class(course, ASSIGNMENT, sample)
    entries = sorted(p for p in sample.iterdir() if p.name != ENDLESS)
    batch = out / ("batch" if endless else "batch-without-endless")
    batch.mkdir()
    chosen = [entries[index % len(entries)] for index in range(size - 1)]
    if endless:
        chosen.insert(size // 2, sample / ENDLESS)  # mid-batch: the other job must carry on meanwhile
    for index, source in enumerate(chosen):
        target = batch / f"s{index:04d}_{source.name}"
        shutil.copytree(source, target) if source.is_dir() else shutil.copy(source, target)
    return batch


def graded_batch_seconds(batch: Path, gradebook: Path) -> float:
    """Wall seconds of ``attn-course grade --batch -j 2`` over ``batch``."""
    started = time.perf_counter()
    subprocess.run([CLI, "grade", ASSIGNMENT, str(batch), "--batch", "-j", str(JOBS), "--gradebook", str(gradebook)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def median_batch_seconds(batch: Path, runs: int, scratch: Path) -> tuple[float, list[float]]:
    """Median wall seconds of ``runs`` batches over ``batch``, each into a fresh gradebook (so all are graded)."""
    times = [graded_batch_seconds(batch, scratch / f"without-{run}.sqlite3") for run in range(runs)]
    return statistics.median(times), times


def batch_figures(course, size: int, scratch: Path, runs: int = 1) -> list[Figure]:
    """Throughput of a batch with ``-j 2``; the same batch with one endless entry more, and what that entry cost.

    The target of 40/s applies to the batch without the hang: a batch that holds a call
    hanging for its whole limit cannot end before that limit has passed, so with a 5 s limit
    no batch of 200 reaches 40/s (200 / 5 s) however fast the rest is. What the hang may cost
    is bounded instead: its own job one call's limit, and the batch no more than that. The
    batch without the hang runs ``runs`` times; its figure is their median.
    """
    without, without_times = median_batch_seconds(make_batch(course, size - 1, scratch, endless=False), runs, scratch)
    gradebook = scratch / "gradebook.sqlite3"
    seconds = graded_batch_seconds(make_batch(course, size, scratch), gradebook)
    with sqlite3.connect(gradebook) as db:
        (endless_s,) = db.execute("SELECT execution_time FROM submissions WHERE student LIKE ?", (f"%{ENDLESS}",)).fetchone()
    limit = course.defaults.call_timeout_s
    return [
        Figure(f"batch of {size - 1} mixed submissions (correct, buggy, broken) with -j {JOBS}", (size - 1) / without, 40,
               "submissions/s", at_most=False,
               detail=", ".join(f"{t:.1f}" for t in without_times) + f" s in all; median of {runs} batch(es)"),
        Figure(f"the same batch with an endless submission in the middle ({size})", size / seconds, None, "submissions/s",
               detail=f"{seconds:.1f} s; with a {limit:g} s call limit no batch of {size} can beat {size / limit:.0f}/s"),
        Figure("what the endless submission cost its job", endless_s, limit + TIMEOUT_SLACK_S, "s",
               detail=f"one call's limit is {limit:g} s"),
        Figure("what the endless submission added to the batch", seconds - without, limit + TIMEOUT_SLACK_S, "s",
               detail="the other job carries on meanwhile"),
    ]


def _report_lines(process: subprocess.Popen, reports: list) -> None:
    """Collect (arrival time, report) of each JSON line ``check --watch`` prints."""
    for line in process.stdout:
        if line.strip():
            reports.append((time.perf_counter(), json.loads(line)))


def _wait_for(reports: list, count: int) -> None:
    deadline = time.perf_counter() + WATCH_DEADLINE_S
    while len(reports) < count:
        if time.perf_counter() > deadline:
            raise RuntimeError(f"check --watch printed {len(reports)} reports, {count} expected")
        time.sleep(0.005)


def watch_figures(assignment, solution_text: str, saves: int, scratch: Path) -> list[Figure]:
    """Save the module ``saves`` times (solution and a broken copy in turn) under ``check --watch``."""
    folder = scratch / "watched"
    shutil.copytree(ASSIGNMENTS_DIR / ASSIGNMENT, folder)
    module = folder / assignment.module
    broken = solution_text.replace("scores = scores / math.sqrt(d_k)", "scores = scores")  # the scale forgotten
    process = subprocess.Popen([CLI, "check", ASSIGNMENT, assignment.module, "--watch", "--format", "json"], cwd=folder,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    reports: list = []
    threading.Thread(target=_report_lines, args=(process, reports), daemon=True).start()
    latencies = []
    try:
        _wait_for(reports, 1)
        for save in range(saves):
            time.sleep(BETWEEN_SAVES_S)
            saved_at = time.perf_counter()
            module.write_text(solution_text if save % 2 == 0 else broken + f"\n# save {save}\n", encoding="utf-8")
            _wait_for(reports, save + 2)
            latencies.append(reports[-1][0] - saved_at)
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(WATCH_DEADLINE_S)
    runs = [report["elapsed"] for _, report in reports[1:]]
    return [
        Figure("check --watch, one re-run", statistics.median(runs), 0.1, "s", detail=f"median; {spread(runs)}"),
        Figure("check --watch, from the save to the report", statistics.median(latencies), 0.2, "s",
               detail="median; adds the wait for the save to settle"),
    ]


def memory_figures(solution: Path) -> list[Figure]:
    """Peak memory of one ``grade``: the grader process, and the submission's processes summed."""
    done = measure([CLI, "grade", ASSIGNMENT, str(solution)])
    submission_mb = done.peak_tree_mb - done.peak_root_mb  # a bound: the peaks of the two need not coincide
    return [
        Figure("grader process, peak resident memory", done.peak_root_mb, 150, "MB"),
        Figure("the submission's processes (sandbox), peak resident memory summed", submission_mb, 100, "MB",
               detail=f"{done.peak_processes} processes at most"),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs of grade and check (medians)")
    parser.add_argument("--batch", type=int, default=200, help="entries of the batch")
    parser.add_argument("--batch-runs", type=int, default=3, help="runs of the batch without the hang (median)")
    parser.add_argument("--saves", type=int, default=10, help="saves under check --watch")
    args = parser.parse_args()
    compile_project()
    speed_before = speeds()
    course = load_course()
    assignment = course.assignment(ASSIGNMENT)
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        solution_text = keep_solutions((SOLUTIONS_DIR / ASSIGNMENT / assignment.module).read_text(encoding="utf-8"))
        solution = scratch / "solution" / assignment.module
        solution.parent.mkdir()
        solution.write_text(solution_text, encoding="utf-8")
        grade_median, grade_times = median_time([CLI, "grade", ASSIGNMENT, str(solution)], args.runs)
        check_median, check_times = median_time([CLI, "check", ASSIGNMENT, str(solution)], args.runs)
        figures = [
            Figure("attn-course grade, one submission, whole process", grade_median, 0.4, "s",
                   detail=f"median; {spread(grade_times)}"),
            Figure("attn-course check, whole process", check_median, 0.4, "s", detail=f"median; {spread(check_times)}"),
            *watch_figures(assignment, solution_text, args.saves, scratch),
            *batch_figures(course, args.batch, scratch, max(args.batch_runs, 1)),
            *memory_figures(solution),
        ]
    print(f"machine: {describe()}, attn-course {__version__}")
    print(speed_line(speed_before, speeds()))
    for figure in figures:
        print(figure.line())
    missed = [f for f in figures if not f.met]
    print(f"{len(figures) - len(missed)}/{len(figures)} targets met")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
