"""Grade every entry of a class folder with N grading processes, committing each result at once.

The parent hands one entry at a time to each ``autograder.batch.worker`` process and reads
its JSON answer; a grading process that dies costs only the entry it held (recorded as an
error row) and is replaced. An entry whose current gradebook row was graded from what would
grade it now (its bytes and time, course.yml, the hidden suite, the grader version: see
:mod:`autograder.batch.resume`) is skipped unless ``regrade`` is set, so an interrupted batch
resumes where it stopped.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
import selectors
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from autograder.batch.entries import Entry, content_hash, list_entries, unknown_students
from autograder.batch.resume import grading_fingerprint, is_current, submitted_text
from autograder.errors import GraderError
from autograder.grade.submitted import TIMES_CSV, TimeSource, read_times_csv
from autograder.gradebook.csv_input import class_file_bytes
from autograder.gradebook.shard import in_shard
from autograder.gradebook.store import Gradebook, GradebookRow
from autograder.sandbox.isolation import Isolation, choose_isolation
from autograder.student_text import clean_text
from autograder.written.batch import store_payload


@dataclass
class BatchSummary:
    """What a batch did."""

    total: int = 0
    graded: int = 0
    skipped: int = 0
    errors: int = 0
    rows: list[GradebookRow] = field(default_factory=list)
    #: Entries the class folder's submitted_at.csv has no row for (no late penalty), and its rows naming no entry.
    untimed: list[str] = field(default_factory=list)
    unknown_in_times: list[str] = field(default_factory=list)
    #: (student, score before, score now) of every entry whose score this batch changed.
    changed: list[tuple[str, float, float]] = field(default_factory=list)


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def row_from_answer(entry: Entry, assignment: str, digest: str, answer: dict, fingerprint: str) -> GradebookRow:
    """A gradebook row from a worker's answer: the result dictionary and its rendered reports."""
    result = answer["result"]
    return GradebookRow(
        student=entry.student,
        assignment=assignment,
        content_hash=digest,
        grader_version=fingerprint,
        status="graded",
        score=result["score"],
        max_score=result["max_score"],
        raw_score=result["raw_score"],
        error=result["load_error"],
        diagnoses=tuple(result["diagnoses"]),
        tests=json.dumps(result["questions"]),
        isolation=result["isolation"],
        days_late=result["days_late"],
        submitted_at=submitted_text(entry),
        submitted_at_source=entry.submitted_at_source,
        graded_at=_now(),
        execution_time=result["execution_time"],
        report=json.dumps({"result": result}),
        seed=result.get("seed"),
    )


def error_row(entry: Entry, assignment: str, digest: str, message: str, max_score: float, fingerprint: str) -> GradebookRow:
    """A row for an entry that could not be graded at all, with the reason."""
    message = clean_text(message)
    return GradebookRow(
        student=entry.student, assignment=assignment, content_hash=digest, grader_version=fingerprint,
        status="error", score=0.0, max_score=max_score, raw_score=0.0, error=message, diagnoses=(),
        tests="[]", isolation="not started", days_late=0,
        submitted_at=submitted_text(entry),
        submitted_at_source=entry.submitted_at_source,
        graded_at=_now(), execution_time=0.0, report=json.dumps({"error": message}),
    )


def job_cpus(jobs: int, cpus: set[int] | None = None) -> list[int | None]:
    """The CPU each of ``jobs`` grading processes keeps to (``cpus``: those this process may use).

    A grading process and its sandbox take turns (each call to the submission is a request
    and an answer), so the two are best on one CPU: every turn is then a switch on that CPU,
    not a wake-up sent to another, which on a virtual machine costs an exit to the
    hypervisor. Each job gets a CPU of its own while there are enough; with more jobs than
    CPUs none is pinned (the scheduler balances them better).
    """
    available = sorted(os.sched_getaffinity(0) if cpus is None else cpus)
    if jobs > len(available):
        return [None] * jobs
    return available[:jobs]


class GradingProcess:
    """One ``autograder.batch.worker`` child and the entry it is grading."""

    def __init__(self, course_file: Path, assignment: str, sandbox: str, cpu: int | None = None):
        pinned = ["--cpu", str(cpu)] if cpu is not None else []
        self.process = subprocess.Popen(  # a process group of its own: Ctrl-C reaches the parent alone, which kills it
            [sys.executable, "-m", "autograder.batch.worker", *pinned, "--sandbox", sandbox, "--course", str(course_file),
             assignment],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1,
            process_group=0,
        )
        self.current: tuple[Entry, str] | None = None

    def send(self, entry: Entry, digest: str) -> None:
        self.current = (entry, digest)
        request = {"key": digest, "path": os.fsdecode(entry.path), "student": entry.student,
                   "submitted_at": submitted_text(entry),
                   "submitted_at_source": entry.submitted_at_source}
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            pass  # the process died; reading its output gives EOF, which records the entry as an error

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait()


def _check_sandbox(course) -> None:
    """Refuse before grading anything when the sandbox cannot run, or when a batch would run without it.

    Raises
    ------
    GraderError
        With the one-line reason.
    """
    if choose_isolation(course.defaults) != Isolation.BWRAP:
        raise GraderError(
            "a class folder is graded only in the bwrap sandbox: without it one student's code could reach the next "
            "one's files and processes; grade one submission per container with --sandbox none instead"
        )


def grade_batch(
    course_file: Path,
    course,
    assignment_id: str,
    folder: Path,
    gradebook_path: Path,
    *,
    jobs: int = 2,
    regrade: bool = False,
    file_times: bool = False,
    on_progress: Callable[[GradebookRow | None], None] = lambda row: None,
    only: str | None = None,
    shard: tuple[int, int] | None = None,
) -> BatchSummary:
    """Grade every entry of ``folder`` into the gradebook.

    Parameters
    ----------
    file_times : bool
        Take submission times from file times when the folder has no ``submitted_at.csv``
        (file times are what the student's archive says; without either, no late penalty).
        With a ``submitted_at.csv``, an entry it has no row for gets no late penalty, and the
        summary (``untimed``) and its gradebook row say so.
    on_progress : callable
        Called after each entry with the row recorded (None for a skipped entry).
    only : str, optional
        Grade only this student's entry (a regrade of one student).
    shard : (int, int), optional
        ``(K, N)``: grade only the students of the K-th of N shards (:mod:`autograder.gradebook.shard`).

    Raises
    ------
    GraderError
        Before grading anything, when the bwrap sandbox cannot run (or is not asked for).
    """
    _check_sandbox(course)
    assignment = course.assignment(assignment_id)
    times = read_times_csv(folder / TIMES_CSV) if (folder / TIMES_CSV).is_file() else None
    entries = [e for e in list_entries(folder, times, file_times)
               if (only is None or e.student == only) and in_shard(e.student, shard)]
    if only is not None and not entries:
        raise GraderError(f"no entry of {clean_text(only)} in {folder}")
    summary = BatchSummary(total=len(entries), unknown_in_times=unknown_students(entries, times),
                           untimed=[e.student for e in entries if e.submitted_at_source == TimeSource.UNMATCHED])
    fingerprint = grading_fingerprint(course_file, assignment.id, also=class_file_bytes(course, course_file))
    with Gradebook(gradebook_path) as book:
        pending = []
        for entry in entries:
            digest = content_hash(entry.path)
            if not regrade and is_current(book.current_row(entry.student, assignment.id), entry, digest, fingerprint):
                summary.skipped += 1
                on_progress(None)
            else:
                pending.append((entry, digest))
        start = functools.partial(GradingProcess, course_file, assignment.id, course.defaults.sandbox)
        _run(pending, start, assignment, fingerprint, book, summary, jobs, on_progress)
    return summary


def _record(book: Gradebook, summary: BatchSummary, row: GradebookRow, on_progress) -> None:
    before = book.current_row(row.student, row.assignment)
    book.record(row)
    if before is not None and before.score != row.score:
        summary.changed.append((row.student, before.score, row.score))
    summary.rows.append(row)
    if row.status == "graded":
        summary.graded += 1
    else:
        summary.errors += 1
    on_progress(row)


def _run(pending, start: Callable[[int | None], GradingProcess], assignment, fingerprint, book, summary, jobs,
         on_progress) -> None:
    if not pending:
        return
    queue = list(reversed(pending))
    selector = selectors.DefaultSelector()
    cpus = job_cpus(min(jobs, len(pending)))
    workers = [start(cpu) for cpu in cpus]
    try:
        for worker in workers:
            selector.register(worker.process.stdout, selectors.EVENT_READ, worker)
            if queue:
                worker.send(*queue.pop())
        while any(w.current for w in workers):
            for key, _ in selector.select():
                worker = key.data
                line = worker.process.stdout.readline()
                entry, digest = worker.current
                if line:
                    answer = json.loads(line)
                    row = (row_from_answer(entry, assignment.id, digest, answer, fingerprint) if "result" in answer
                           else error_row(entry, assignment.id, digest, answer["error"], assignment.max_points, fingerprint))
                else:
                    selector.unregister(worker.process.stdout)
                    worker.close()
                    row = error_row(
                        entry, assignment.id, digest, "the grading process died on this entry", assignment.max_points, fingerprint
                    )
                    slot = workers.index(worker)
                    workers[slot] = worker = start(cpus[slot])  # the replacement keeps to the same CPU
                    selector.register(worker.process.stdout, selectors.EVENT_READ, worker)
                worker.current = None
                if queue:  # the next entry first: the grading process works while the row is committed
                    worker.send(*queue.pop())
                store_payload(book.path, assignment, entry.student, answer if line else None)
                _record(book, summary, row, on_progress)
    except KeyboardInterrupt:  # what was recorded stays; the entries being graded are dropped, not recorded as errors
        for worker in workers:
            worker.process.kill()
        raise
    finally:
        for worker in workers:
            worker.close()
        selector.close()
