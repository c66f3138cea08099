"""A grading process for batches: JSON lines in (submission paths), JSON lines out (results).

Started by :mod:`autograder.batch.runner` as ``python -m autograder.batch.worker``. It is
the grader (trusted code); student code still runs only in its sandboxed workers. Results
travel as JSON, so the parent never unpickles anything.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import traceback
from pathlib import Path

from autograder.config import load_course
from autograder.errors import AmbiguousSubmission
from autograder.grade.api import grade_submission
from autograder.grade.record import to_record
from autograder.grade.submitted import SubmissionTime, TimeSource
from autograder.gradebook.extensions import course_extensions, with_due
from autograder.sandbox.spares import keep_spares
from autograder.written.batch import answers_payload


def grade_line(course, assignment_id: str, line: str, extensions=None) -> dict:
    """Grade the submission a request line names; a grader failure becomes an ``error`` answer.

    ``extensions`` (:class:`autograder.gradebook.extensions.Extensions`) give the request's
    ``student`` their own due date.
    """
    request = json.loads(line)
    if extensions is not None and request.get("student"):
        course = with_due(course, assignment_id, extensions.due_for(request["student"], course.assignment(assignment_id)))
    submitted_at = dt.datetime.fromisoformat(request["submitted_at"]) if request.get("submitted_at") else None
    source = request.get("submitted_at_source") or TimeSource.NONE
    try:
        result = grade_submission(course, assignment_id, Path(request["path"]),
                                  submitted=SubmissionTime(submitted_at, TimeSource(source)))
        return {"key": request["key"], "result": to_record(result),
                **answers_payload(course, assignment_id, Path(request["path"]))}
    except AmbiguousSubmission as error:  # a person must say which file counts
        return {"key": request["key"], "error": f"not graded: {error}"}
    except Exception as error:  # a grader bug on one entry must not lose the batch
        return {"key": request["key"], "error": f"grader error: {error!r}", "trace": traceback.format_exc(limit=5)}


def keep_to_cpu(cpu: int) -> bool:
    """Keep this process (and what it starts) to ``cpu``; False, changing nothing, where it may not run there."""
    try:
        os.sched_setaffinity(0, {cpu})
    except (OSError, ValueError):  # the CPU went away (a changed cpuset) or never was: grade unpinned
        return False
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--course", required=True)
    parser.add_argument("--sandbox", choices=("bwrap", "none"), help="Override course.yml defaults.sandbox.")
    parser.add_argument("--cpu", type=int, help="Keep this process and its sandboxes to this CPU.")
    parser.add_argument("assignment")
    args = parser.parse_args(argv)
    if args.cpu is not None:  # before the sandbox starts: its processes inherit the CPU
        keep_to_cpu(args.cpu)
    course = load_course(args.course)
    if args.sandbox:
        course = course.model_copy(update={"defaults": course.defaults.model_copy(update={"sandbox": args.sandbox})})
    extensions = course_extensions(course, args.course)
    keep_spares(True)  # the next submission's worker starts while this one is graded
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints cannot corrupt the answers
    for line in sys.stdin:
        if line.strip():
            answers.write(json.dumps(grade_line(course, args.assignment, line, extensions)) + "\n")
            answers.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
