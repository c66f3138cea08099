"""Feedback release: feedback held until the instructor publishes it, per assignment.

With course.yml's ``feedback_release: held``, ``attn-course gradebook --feedback DIR`` writes an
assignment's feedback to the held folder ``DIR.held`` (beside ``DIR``, never inside it: sharing
``DIR`` with the students never shares what is held), where the instructor can read it. The
assignment is published, into ``DIR``, by ``attn-course gradebook release ASSIGNMENT --feedback
DIR`` (recorded in ``DIR/released.json`` with who and when), or by ``--feedback`` itself once
the assignment's ``release`` date of course.yml has passed; from then on ``--feedback`` writes
it to ``DIR``. Published feedback is rendered from the gradebook at that moment (overrides
applied), showing the hidden tests' detail as course.yml's ``gradescope.hidden_test_visibility``
says: ``visible`` and ``after_published`` show it, ``hidden`` never does, ``after_due_date``
once the student's own due date (extensions included) has passed; without it, a question's
feedback is its score, and a note says when the detail comes. ``feedback_release: immediate``
(the default) writes everything to ``DIR`` as it is.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

from autograder.gradebook.extensions import course_extensions
from autograder.gradebook.overrides import _note
from autograder.i18n import msg

RELEASED = "released.json"


def held_dir(out: Path) -> Path:
    """The held folder of the feedback folder ``out``: ``out.held``, beside it."""
    out = Path(out)
    return out.with_name(out.name + ".held")


def released(out: Path) -> dict:
    """``{assignment: {"at", "by"}}`` of the assignments published into ``out``."""
    try:
        data = json.loads((Path(out) / RELEASED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def is_published(course, assignment, out: Path, now: dt.datetime) -> bool:
    """Whether ``assignment``'s feedback goes to ``out`` (published) rather than to its held folder."""
    if course.feedback_release == "immediate" or assignment.id in released(out):
        return True
    return assignment.release is not None and now >= assignment.release


def shows_detail(course, due: dt.datetime, now: dt.datetime) -> bool:
    """Whether published feedback shows the hidden tests' detail, for a student due at ``due``."""
    visibility = course.gradescope.hidden_test_visibility
    return visibility in ("visible", "after_published") or (visibility == "after_due_date" and now >= due)


def without_detail(row, visibility: str):
    """``row`` with its questions' test detail left out of the record, and a note saying when it comes."""
    from dataclasses import replace

    report = row.report_dict
    record = report.get("result")
    if not isinstance(record, dict):
        return row
    record = json.loads(json.dumps(record))
    for question in record.get("questions") or []:
        question["tests"] = []
    record["diagnoses"] = []
    _note(record, msg("The details of the hidden tests are not shown.") if visibility == "hidden"
          else msg("The details of the hidden tests are shown after the due date."))
    return replace(row, report=json.dumps({**report, "result": record}))


def _published_rows(course, course_file, rows, assignment, now):
    if course.feedback_release == "immediate":
        return rows
    extensions = course_extensions(course, course_file)
    return [row if shows_detail(course, extensions.due_for(row.student, assignment), now)
            else without_detail(row, course.gradescope.hidden_test_visibility) for row in rows]


def write_feedback_by_release(course, course_file, rows, out: Path, language: str, students,
                              now: dt.datetime | None = None) -> list[str]:
    """Write each assignment's feedback where its release says (see the module); what to tell the instructor."""
    from autograder.gradebook.export import feedback_lines, write_feedback

    now = now or dt.datetime.now(dt.timezone.utc)
    published, held = [], []  # one write each: students.csv names every student of the export
    for assignment in course.assignments:
        own = [r for r in rows if r.assignment == assignment.id]
        if is_published(course, assignment, out, now):
            published += _published_rows(course, course_file, own, assignment, now)
        else:
            held += own
    lines = feedback_lines(write_feedback(published, Path(out), language, students), Path(out)) if published else []
    if held:
        ids = ", ".join(dict.fromkeys(r.assignment for r in held))
        written = write_feedback(held, held_dir(out), language, students)
        lines.append(f"held: feedback on {len(written)} submissions of {ids} -> {held_dir(out)} (students do not see it); "
                     f"publish with `attn-course gradebook release ASSIGNMENT --feedback {out}`")
    return lines


def release(course, course_file, rows, assignment_id: str, out: Path, language: str, students, who: str,
            now: dt.datetime | None = None) -> list[Path]:
    """Publish ``assignment_id``'s feedback into ``out`` from ``rows`` (the gradebook's, now), and drop its held copy."""
    from autograder.gradebook.export import write_feedback

    now = now or dt.datetime.now(dt.timezone.utc)
    assignment = course.assignment(assignment_id)
    own = [r for r in rows if r.assignment == assignment.id]
    record = {**released(out), assignment.id: {"at": now.isoformat(timespec="seconds"), "by": who}}
    written = write_feedback(_published_rows(course, course_file, own, assignment, now), out, language, students)
    for folder in held_dir(out).glob(f"*/{assignment.id}"):
        shutil.rmtree(folder)
    Path(out).mkdir(parents=True, exist_ok=True)
    (Path(out) / RELEASED).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return written
