"""Class statistics for the class report: mean and median, item analysis, late and missing work.

Per assignment, over its rows (a roster student with no submission counts 0, as in every
export): the mean and median score, how many were late and how many missing or not graded.
Per question, item analysis as classical test theory has it: the **difficulty** is the mean
share of the points students got (1 = everyone had it all), the **discrimination** the
correlation of the question's score with the rest of the assignment's (the corrected
item-total correlation; none when either does not vary). A question of low or negative
discrimination does not tell the students who do well apart from the others: look at it.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from autograder.escape import html_text
from autograder.gradebook.store import GradebookRow


@dataclass(frozen=True)
class AssignmentStats:
    """One assignment's figures (``mean`` and ``median`` None for no rows)."""

    assignment: str
    students: int
    mean: float | None
    median: float | None
    late: int
    missing: int
    not_graded: int


@dataclass(frozen=True)
class ItemStats:
    """One question's item analysis over the graded submissions."""

    function: str
    points: float
    students: int
    difficulty: float | None
    discrimination: float | None


def assignment_stats(rows: list[GradebookRow], assignment) -> AssignmentStats:
    """The figures of ``assignment`` over its rows (see the module)."""
    own = [r for r in rows if r.assignment == assignment.id]
    scores = [r.score for r in own]
    return AssignmentStats(
        assignment.id, len(own), statistics.fmean(scores) if scores else None, statistics.median(scores) if scores else None,
        sum(r.days_late > 0 for r in own), sum(r.status == "no submission" for r in own),
        sum(r.status not in ("graded", "no submission") for r in own),
    )


def correlation(xs: list[float], ys: list[float]) -> float | None:
    """Pearson's correlation of two equally long lists; None when there are fewer than 3 or either is constant."""
    if len(xs) < 3 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    cov = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    return cov / math.sqrt(sum((x - mx) ** 2 for x in xs) * sum((y - my) ** 2 for y in ys))


def _question_table(rows: list[GradebookRow], assignment) -> list[dict[str, float]]:
    from autograder.gradebook.details import question_scores

    graded = [r for r in rows if r.assignment == assignment.id and r.status == "graded"]
    return [{f: scores.get(f, 0.0) for f in assignment.functions} for scores in map(question_scores, graded)]


def item_stats(rows: list[GradebookRow], assignment) -> list[ItemStats]:
    """Difficulty and discrimination of every question of ``assignment``, in course.yml order."""
    table = _question_table(rows, assignment)
    found = []
    for question in assignment.questions:
        item = [record[question.function] for record in table]
        rest = [sum(record.values()) - record[question.function] for record in table]
        difficulty = statistics.fmean(item) / question.points if item else None
        found.append(ItemStats(question.function, question.points, len(item), difficulty, correlation(item, rest)))
    return found


def _figure(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def stats_section(course, rows: list[GradebookRow], ids: list[str]) -> str:
    """The class report's figures: a summary table of the assignments, then each one's item analysis."""
    summary, items = [], []
    for assignment in (a for a in course.assignments if a.id in ids):
        s = assignment_stats(rows, assignment)
        summary.append(f"<tr><td>{html_text(s.assignment)}</td><td>{s.students}</td><td>{_figure(s.mean)}</td>"
                       f"<td>{_figure(s.median)}</td><td>{assignment.max_points:g}</td><td>{s.late}</td><td>{s.missing}</td>"
                       f"<td>{s.not_graded}</td></tr>")
        lines = "".join(f"<tr><td>Q{n} {html_text(i.function)}</td><td>{i.points:g}</td><td>{i.students}</td>"
                        f"<td>{_figure(i.difficulty)}</td><td>{_figure(i.discrimination)}</td></tr>"
                        for n, i in enumerate(item_stats(rows, assignment), start=1))
        items.append(f"<h3>{html_text(assignment.id)}</h3><div class=\"table\"><table><tr><th>question</th><th>points</th>"
                     f"<th>graded</th><th>difficulty</th><th>discrimination</th></tr>{lines}</table></div>")
    return ('<h2>Summary</h2><div class="table"><table><tr><th>assignment</th><th>students</th><th>mean</th><th>median</th>'
            f'<th>out of</th><th>late</th><th>no submission</th><th>not graded</th></tr>{"".join(summary)}</table></div>'
            '<h2>Item analysis</h2><p class="muted">Difficulty: the mean share of the points students got. '
            "Discrimination: how well the question's score follows the rest of the assignment's (correlation; low or "
            "negative: look at the question).</p>" + "".join(items))
