"""The class report's section on written answers: per question, answers graded, the mean, and how many got each rubric item."""

from __future__ import annotations

from autograder.escape import html_text
from autograder.gradebook.written_scores import WRITTEN


def rubric_counts(rows, assignment) -> dict[str, dict]:
    """``{question id: {"answered", "graded", "scores", "items": {item id: count}}}`` of the rows' written entries."""
    found = {q.id: {"answered": 0, "graded": 0, "scores": [], "items": {i.id: 0 for i in q.rubric}} for q in assignment.written}
    for row in (r for r in rows if r.assignment == assignment.id):
        for entry in row.report_dict.get(WRITTEN) or []:
            counts = found.get(entry.get("id")) if isinstance(entry, dict) else None
            if counts is None:
                continue
            counts["answered"] += bool(entry.get("answered"))
            if entry.get("graded"):
                counts["graded"] += 1
                counts["scores"].append(float(entry.get("score", 0.0)))
                for item in entry.get("items") or []:
                    if item.get("applied") and item.get("id") in counts["items"]:
                        counts["items"][item["id"]] += 1
    return found


def written_section(course, rows, ids: list[str]) -> str:
    """The section's HTML ("" when no assignment of ``ids`` has written questions)."""
    parts = []
    for assignment in (a for a in course.assignments if a.id in ids and a.written):
        counts = rubric_counts(rows, assignment)
        parts.append(f"<h3>{html_text(assignment.id)}</h3>")
        for number, question in enumerate(assignment.written, start=1):
            found = counts[question.id]
            mean = sum(found["scores"]) / len(found["scores"]) if found["scores"] else 0.0
            items = "".join(f"<tr><td>{html_text(i.id)}</td><td class=\"text\">{html_text(i.text_in('en'))}</td>"
                            f"<td>{i.points:g}</td><td>{found['items'][i.id]}</td></tr>" for i in question.rubric)
            parts.append(f"<p><strong>W{number} {html_text(question.id)}</strong> (out of {question.points:g}): "
                         f"{found['answered']} answered, {found['graded']} graded, mean {mean:.2f}</p>"
                         f'<div class="table"><table><tr><th>rubric item</th><th>description</th><th>points</th>'
                         f"<th>answers given it</th></tr>{items}</table></div>")
    return ("<h2>Written answers</h2><p class=\"muted\">Graded by people (attn-course review): how many answers got "
            "each rubric item.</p>" + "\n".join(parts)) if parts else ""
