"""Why a gradebook row scored what it did, in a few words: what the instructor reads in a table's reason column.

Read from the row's canonical record: an entry not graded, a file that did not load, an
untouched stub, calls that timed out or crashed, penalties (imports, lateness), an entry the
class folder's ``submitted_at.csv`` has no time for, and the named bugs. Student text in them
is cleaned by the table that shows it.
"""

from __future__ import annotations

from autograder.grade.submitted import TimeSource
from autograder.gradebook.store import GradebookRow

#: The status of a roster student's row with no entry (autograder.gradebook.roster.NO_SUBMISSION).
NO_SUBMISSION = "no submission"

#: Test kinds (autograder.errors) that are worth naming in the reason column, with their label.
NAMED_KINDS = {"timeout": "timed out", "crashed": "crashed"}
NOT_IMPLEMENTED = "not_implemented"
#: What a row of an entry without a submission time in the class folder's times file says.
NO_TIME = f"{TimeSource.UNMATCHED}: no late penalty applied"
#: Characters of a penalty's reason kept.
PENALTY_CHARS = 60


def _tests(record: dict) -> list[dict]:
    return [t for q in record.get("questions", ()) for t in q.get("tests", ())]


def _stub_reason(record: dict) -> list[str]:
    questions = record.get("questions", ())
    untouched = [q["function"] for q in questions if q.get("tests") and all(t.get("kind") == NOT_IMPLEMENTED for t in q["tests"])]
    if untouched and len(untouched) == len(questions):
        return ["untouched stub"]
    return [f"not implemented: {', '.join(untouched)}"] if untouched else []


def _kind_reasons(record: dict) -> list[str]:
    counts = {kind: sum(t.get("kind") == kind for t in _tests(record)) for kind in NAMED_KINDS}
    return [f"{NAMED_KINDS[kind]} ({count} test{'s' if count > 1 else ''})" for kind, count in counts.items() if count]


def _penalty_reasons(record: dict) -> list[str]:
    reasons = []
    for penalty in record.get("penalties", ()):
        why = str(penalty.get("reason", ""))
        why = why if len(why) <= PENALTY_CHARS else why[: PENALTY_CHARS - 1] + "…"
        reasons.append(f"penalty -{float(penalty.get('fraction', 0)):.0%}: {why}")
    return reasons


def gist(message: str) -> str:
    """One line of a message: its first, or for a traceback its last (``SyntaxError: ...``)."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if not lines:
        return ""
    is_traceback = message.startswith(("Traceback", "  File ")) or lines[0].startswith("File ")
    return lines[-1] if is_traceback else lines[0]


def row_reasons(row: GradebookRow) -> list[str]:
    """The reasons behind a row's score, most important first (empty for a full score with nothing to say).

    An entry that ``submitted_at.csv`` has no time for says so whatever its score: its lateness is unknown.
    """
    untimed = [NO_TIME] if row.submitted_at_source == TimeSource.UNMATCHED else []
    if row.status == NO_SUBMISSION:  # a roster student who handed nothing in (autograder.gradebook.roster)
        return [NO_SUBMISSION]
    if row.status != "graded":
        return [f"not graded: {gist(row.error or '') or 'grader error'}", *untimed]
    record = row.report_dict.get("result") or {}
    if record.get("load_error"):
        return [f"not loaded: {gist(str(record['load_error']))}", *untimed]
    return [*_stub_reason(record), *_kind_reasons(record), *untimed, *_penalty_reasons(record), *row.diagnoses]
