"""How fast ``attn-course review`` starts and answers, for a class of 300 (targets: start < 1 s, a page < 50 ms).

Run: ``.venv/bin/python benchmarks/review_speed.py [--students 300] [--pages 300]``

A gradebook of ``--students`` students who answered every written question of the first
assignment that has any is made in a temporary folder. Printed: the seconds from starting
``attn-course review`` (a fresh interpreter: imports, the gradebook opened, the port bound) to
the printed URL and to its first page; then the latency of answer pages (each a different answer,
the filter on and off, the student shown and hidden) and of saves, median, 95th percentile and
worst, in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from autograder.config import load_course
from autograder.gradebook.store import Gradebook
from autograder.gradebook.written import WrittenBook
from autograder.written.extract import Answer
from autograder.written.review import answer_key

#: The targets of issue 27.
START_TARGET_S, PAGE_TARGET_MS = 1.0, 50.0


def seed_class(path: Path, assignment, students: int) -> list[str]:
    """A gradebook at ``path`` whose students answered every written question; their ids."""
    ids = [f"student{n:04d}" for n in range(students)]
    Gradebook(path).close()
    with WrittenBook(path) as book:
        for student in ids:
            book.store_answers(student, assignment.id, [
                Answer(q.id, f"Answer of {student} to {q.id}: " + "the variance of q·k grows with d_k. " * 8, True)
                for q in assignment.written])
    return ids


def start_server(assignment_id: str, path: Path) -> tuple[subprocess.Popen, str, float]:
    """``attn-course review`` in a fresh interpreter; the process, its URL and the seconds until it printed it."""
    program = Path(sys.executable).with_name("attn-course")  # the installed program: its entry point, as a TA runs it
    command = [str(program)] if program.is_file() else [sys.executable, "-m", "autograder.cli"]
    started = time.perf_counter()
    process = subprocess.Popen([*command, "review", assignment_id, "--gradebook", str(path)], stdout=subprocess.PIPE, text=True)
    url = process.stdout.readline().rsplit(" ", 1)[-1].strip()
    return process, url, time.perf_counter() - started


def timed(request: urllib.request.Request | str) -> float:
    """Milliseconds of one request, its answer read whole."""
    started = time.perf_counter()
    with urllib.request.urlopen(request) as answer:
        answer.read()
    return (time.perf_counter() - started) * 1000


def _summary(name: str, times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"{name:<14} median {statistics.median(ordered):6.1f} ms   p95 {p95:6.1f} ms   worst {ordered[-1]:6.1f} ms   ({len(ordered)})"


def measure(students: int, pages: int) -> list[str]:
    """The lines the benchmark prints."""
    course = load_course()
    assignment = next(a for a in course.assignments if a.written)
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "gradebook.sqlite3"
        ids = seed_class(path, assignment, students)
        process, url, to_url = start_server(assignment.id, path)
        try:
            first = timed(url) / 1000
            rng = random.Random(27)
            page_times, save_times = [], []
            for n in range(pages):
                question, student = rng.choice(assignment.written), rng.choice(ids)
                query = "?" + "&".join(flag for flag, on in (("ungraded=1", n % 2), ("reveal=1", n % 3 == 0)) if on)
                page_times.append(timed(f"{url}q/{question.id}/{answer_key(assignment.id, question.id, student)}{query}"))
                with WrittenBook(path) as book:
                    version = book.row(student, assignment.id, question.id).version
                body = json.dumps({"question": question.id, "key": answer_key(assignment.id, question.id, student),
                                   "items": [question.rubric[0].id], "comment": "ok", "version": version}).encode()
                save_times.append(timed(urllib.request.Request(f"{url}save", data=body, method="POST",
                                                               headers={"Content-Type": "application/json"})))
        finally:
            process.terminate()
            process.wait(timeout=10)
    return [f"class of {students} students, {len(assignment.written)} written questions ({students * len(assignment.written)} answers)",
            f"server start   {to_url:.2f} s to the printed URL, {to_url + first:.2f} s to its first page (target < {START_TARGET_S:g} s)",
            _summary("answer page", page_times) + f"   (target < {PAGE_TARGET_MS:g} ms)",
            _summary("save", save_times)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--pages", type=int, default=300)
    args = parser.parse_args(argv)
    print("\n".join(measure(args.students, args.pages)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
