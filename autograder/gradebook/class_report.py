"""``attn-course gradebook --html``: the class on one page, so an instructor sees what to re-teach.

A table of the class (a score per assignment, the total, the reasons), a histogram of the
scores of every question, and the most frequent diagnoses with their hints and how many
students each concerns. Read from the gradebook's canonical records; one self-contained
HTML file (images inline), like the students' feedback pages. Every text goes through
:func:`autograder.escape.html_text`; student ids are one line first (``\x0a`` for a newline).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from autograder.config import Course
from autograder.escape import html_text
from autograder.gradebook.export import score_table
from autograder.gradebook.item_stats import stats_section
from autograder.gradebook.reasons import row_reasons
from autograder.gradebook.store import GradebookRow
from autograder.report.page import image, page
from autograder.student_text import clean_name

#: The class report is wider than a feedback page (a 1280 px screen shows the whole class table, reasons
#: included); its headers and reasons wrap, so that on a phone only the table scrolls sideways.
WIDE = ("<style>body { max-width: 80rem; } th { white-space: normal; }"
        " td.text { min-width: 12rem; }</style>")
#: Diagnoses listed, most frequent first.
TOP_DIAGNOSES = 10
HISTOGRAM_CLASS = "histogram"


@dataclass(frozen=True)
class DiagnosisCount:
    """A named bug, how many students' submissions show it, in which assignment, and its hint."""

    id: str
    assignment: str
    students: int
    hint: str
    example: str = ""  # one student's failed test that shows it: "student: test (message)"


def question_scores(rows: list[GradebookRow], assignment_id: str) -> dict[str, tuple[float, list[float]]]:
    """Per question of one assignment: (its points, every graded student's score), from the records."""
    scores: dict[str, tuple[float, list[float]]] = {}
    for row in rows:
        record = row.report_dict.get("result") if row.assignment == assignment_id and row.status == "graded" else None
        for question in (record or {}).get("questions", ()):
            points, found = scores.setdefault(question["function"], (float(question["max_score"]), []))
            found.append(float(question["score"]))
    return scores


def _hints(row: GradebookRow) -> dict[str, str]:
    record = row.report_dict.get("result") or {}
    return {bug: hint for q in record.get("questions", ()) for t in q.get("tests", ()) for bug, hint in (t.get("hints") or {}).items()}


def _examples(row: GradebookRow) -> dict[str, str]:
    """``{diagnosis: "student: test (message)"}`` of the row's failed tests, the first test naming each."""
    record = row.report_dict.get("result") or {}
    found: dict[str, str] = {}
    for test in (t for q in record.get("questions", ()) for t in q.get("tests", ())):
        message = (test.get("message") or "").splitlines()[:1]
        for bug in test.get("diagnoses", ()):
            found.setdefault(bug, f"{clean_name(row.student)}: {test.get('description') or test.get('name')}"
                                  + (f" ({message[0][:120]})" if message else ""))
    return found


def frequent_diagnoses(rows: list[GradebookRow], top: int = TOP_DIAGNOSES) -> list[DiagnosisCount]:
    """The diagnoses shared by the most students (each student counted once per assignment)."""
    counts: Counter = Counter()
    hints: dict[tuple[str, str], str] = {}
    examples: dict[tuple[str, str], str] = {}
    for row in sorted(rows, key=lambda r: r.student):
        row_hints, row_examples = _hints(row), _examples(row)
        for bug in dict.fromkeys(row.diagnoses):
            counts[(row.assignment, bug)] += 1
            hints.setdefault((row.assignment, bug), row_hints.get(bug, ""))
            if row_examples.get(bug):
                examples.setdefault((row.assignment, bug), row_examples[bug])
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:top]
    return [DiagnosisCount(bug, assignment, count, hints[(assignment, bug)], examples.get((assignment, bug), ""))
            for (assignment, bug), count in ranked]


def _class_table(course: Course, rows: list[GradebookRow], ids: list[str]) -> str:
    reasons = {(r.student, r.assignment): "; ".join(row_reasons(r)) for r in rows}
    maxima = {a.id: a.max_points for a in course.assignments}
    head = "".join(f"<th>{html_text(i).replace('_', '_<wbr>')}<br><span class=\"muted\">/ {maxima[i]:g}</span></th>"
                   for i in ids)  # an id may wrap after its underscores
    lines = []
    for record in score_table(rows, ids):
        cells = "".join("<td class=\"muted\">missing</td>" if record[i] is None else f"<td>{record[i]:g}</td>" for i in ids)
        why = " | ".join(html_text(reasons[(record["student"], i)]) for i in ids if reasons.get((record["student"], i)))
        lines.append(f"<tr><td>{html_text(clean_name(record['student']))}</td>{cells}<td>{record['total']:g}</td>"
                     f"<td class=\"text\">{why}</td></tr>")
    return (f'<h2>The class</h2><div class="table"><table><tr><th>student</th>{head}<th>total</th><th>reasons</th></tr>'
            f'{"".join(lines)}</table></div>')


def _histograms(course: Course, rows: list[GradebookRow], ids: list[str]) -> str:
    from autograder.report.heatmaps import histogram_png

    parts = ["<h2>Scores per question</h2>"]
    for assignment in (a for a in course.assignments if a.id in ids):
        scores = question_scores(rows, assignment.id)
        if not scores:
            continue
        parts.append(f"<h3>{html_text(assignment.id)}: {html_text(assignment.title)}</h3>")
        for number, question in enumerate(assignment.questions, start=1):
            points, found = scores.get(question.function, (question.points, []))
            title = f"Q{number} {question.function} ({len(found)} students, out of {points:g})"
            alt = f"Histogram of the scores of Q{number} {question.function}"
            parts.append(f"<figure>{image(histogram_png(found, points, title), alt, HISTOGRAM_CLASS)}</figure>")
    return "\n".join(parts)


def _diagnoses(rows: list[GradebookRow]) -> str:
    found = frequent_diagnoses(rows)
    if not found:
        return "<h2>Most frequent diagnoses</h2><p>No known bug was named.</p>"
    cards = "".join(
        f'<div class="diagnosis"><strong>{d.students} student{"s" if d.students > 1 else ""}</strong> · '
        f'<code>{html_text(d.id)}</code> <span class="muted">({html_text(d.assignment)})</span><br>{html_text(d.hint)}'
        + (f'<br><span class="muted">e.g. {html_text(d.example)}</span>' if d.example else "") + "</div>"
        for d in found
    )
    return ("<h2>Most frequent diagnoses</h2><p class=\"muted\">What to re-teach: the bugs most students' code shows.</p>"
            + cards)


def class_report(course: Course, rows: list[GradebookRow], title: str = "Class report", sections: tuple[str, ...] = ()) -> str:
    """The class report page: table, histograms per question, most frequent diagnoses.

    ``sections`` are more sections' HTML (the similarity flags), shown before the histograms.
    """
    ids = [a.id for a in course.assignments if any(r.assignment == a.id for r in rows)]
    students = len({r.student for r in rows})
    body = "\n".join([
        f"<h1>{html_text(title)}</h1>",
        f'<p class="muted">{students} students, {len(rows)} graded entries ({sum(r.status != "graded" for r in rows)} not graded).</p>',
        stats_section(course, rows, ids), _diagnoses(rows), *sections, _histograms(course, rows, ids),
        _class_table(course, rows, ids), WIDE,
    ])
    return page(title, body)


def write_class_report(course: Course, rows: list[GradebookRow], path: Path, title: str = "Class report",
                       sections: tuple[str, ...] = ()) -> Path:
    """Write :func:`class_report` to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(class_report(course, rows, title, sections), encoding="utf-8")
    return path
