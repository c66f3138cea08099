"""Measure grading speed and worker memory on this machine, and print the figures.

Run: ``.venv/bin/python benchmarks/bench_grading.py [--runs 7] [--batch 200]``

Figures (targets from the batch-grading issue, for a whole assignment's hidden suite):
- one submission, ``attn-course grade`` as a whole process: median wall time;
- a batch of N submissions with ``-j 2``: submissions per second;
- ``attn-course check`` (public tests): median wall time;
- peak resident memory of a sandboxed worker.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import __version__  # noqa: E402
from autograder.build.markers import keep_solutions  # noqa: E402
from autograder.config import load_course  # noqa: E402
from autograder.demo.sample_class import write_sample_class  # noqa: E402
from autograder.paths import SOLUTIONS_DIR  # noqa: E402

CLI = str(Path(sys.executable).with_name("attn-course"))
ASSIGNMENT = "hw1_scaled_attention"
JOBS = 2
KIB = 1024


def timed(command: list[str], cwd: Path | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def median_time(command: list[str], runs: int, cwd: Path | None = None) -> tuple[float, list[float]]:
    timed(command, cwd)  # warm the file cache
    times = [timed(command, cwd) for _ in range(runs)]
    return statistics.median(times), times


def make_batch(course, size: int, out: Path) -> Path:
    """``size`` entries cycling through the sample class (solution, stub, buggy and broken entries)."""
    sample = out / "sample"
    write_sample_class(course, ASSIGNMENT, sample)
    entries = sorted(p for p in sample.iterdir() if p.name not in ("ivy",))  # ivy's endless loop measures timeouts, not speed
    batch = out / "batch"
    batch.mkdir()
    for index in range(size):
        source = entries[index % len(entries)]
        target = batch / f"s{index:04d}_{source.name}"
        shutil.copytree(source, target) if source.is_dir() else shutil.copy(source, target)
    return batch


def worker_peak_memory_kib(course, solution: Path) -> int:
    """Largest resident set of any child of a process that grades one submission."""
    code = (
        "import resource, sys; from pathlib import Path; from autograder.config import load_course;"
        "from autograder.grade.api import grade_submission;"
        f"grade_submission(load_course(), {ASSIGNMENT!r}, Path({str(solution)!r}));"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    output = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=ROOT).stdout
    return int(output.strip().splitlines()[-1])


def machine() -> str:
    import numpy

    return (
        f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numpy {numpy.__version__}, attn-course {__version__}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--batch", type=int, default=200)
    args = parser.parse_args()
    course = load_course()
    assignment = course.assignment(ASSIGNMENT)
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        solution = scratch / "solution" / assignment.module
        solution.parent.mkdir()
        solution.write_text(keep_solutions((SOLUTIONS_DIR / ASSIGNMENT / assignment.module).read_text()), encoding="utf-8")
        grade_median, grade_times = median_time([CLI, "grade", ASSIGNMENT, str(solution)], args.runs)
        check_median, check_times = median_time([CLI, "check", ASSIGNMENT, str(solution)], args.runs)
        batch = make_batch(course, args.batch, scratch)
        started = time.perf_counter()
        subprocess.run(
            [CLI, "grade", ASSIGNMENT, str(batch), "--batch", "-j", str(JOBS), "--gradebook", str(scratch / "gb.sqlite3")],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        batch_seconds = time.perf_counter() - started
        peak_kib = worker_peak_memory_kib(course, solution)
    print(f"machine: {machine()}")
    print(f"attn-course grade (one submission, whole process): median {grade_median:.2f} s over {args.runs} runs "
          f"(min {min(grade_times):.2f}, max {max(grade_times):.2f}); target <= 1.0 s")
    print(f"attn-course check (public tests): median {check_median:.2f} s (min {min(check_times):.2f}, "
          f"max {max(check_times):.2f}); target <= 1.0 s")
    print(f"batch of {args.batch} with -j {JOBS}: {batch_seconds:.1f} s = {args.batch / batch_seconds:.1f} submissions/s; "
          "target >= 10/s")
    print(f"peak worker memory: {peak_kib / KIB:.0f} MB; target <= 200 MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
