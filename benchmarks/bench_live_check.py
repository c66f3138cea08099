"""Median time of one in-notebook check (``check("softmax")``, autograder.check.live) per question, warm child.

Run: ``.venv/bin/python benchmarks/bench_live_check.py [--runs 21]``

Defines hw1's solution as notebook cells would (its source where ``inspect`` finds it), in a
copy of the release folder, checks once to start the portable child, then times ``runs``
checks of each question. Target: at most 50 ms per question (median); exits 1 when missed.
"""

from __future__ import annotations

import argparse
import linecache
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.build.markers import keep_solutions  # noqa: E402
from autograder.check.live import check_here  # noqa: E402
from autograder.config import load_course  # noqa: E402
from autograder.paths import ASSIGNMENTS_DIR, SOLUTIONS_DIR  # noqa: E402

ASSIGNMENT = "hw1_scaled_attention"
TARGET_S = 0.05


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="checks timed per question")
    args = parser.parse_args()
    assignment = load_course().assignment(ASSIGNMENT)
    source = keep_solutions((SOLUTIONS_DIR / ASSIGNMENT / assignment.module).read_text(encoding="utf-8"))
    namespace = {"__name__": "__main__"}
    linecache.cache["<cell 1>"] = (len(source), None, source.splitlines(True), "<cell 1>")
    exec(compile(source, "<cell 1>", "exec"), namespace)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / ASSIGNMENT
        shutil.copytree(ASSIGNMENTS_DIR / ASSIGNMENT, folder)
        check_here(None, namespace, folder)  # starts the child the checks keep
        medians = {}
        for function in assignment.functions:
            times = []
            for _ in range(args.runs):
                started = time.perf_counter()
                check_here(function, namespace, folder)
                times.append(time.perf_counter() - started)
            medians[function] = statistics.median(times)
    for function, median in medians.items():
        print(f"check({function!r}): median {median * 1000:.1f} ms over {args.runs} runs")
    overall = statistics.median(medians.values())
    print(f"in-notebook check, one question: median {overall * 1000:.1f} ms (target <= {TARGET_S * 1000:.0f} ms)")
    return 0 if overall <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
