"""``feedback.html``: one graded submission as a page a student can read on a phone.

The score of every question; each failing test with its message (what was expected, what
came back); the named bugs with their hints; and pictures where they explain more than
text: the expected attention weights beside the student's for the worked example and for
one failing call of each question, and the table of the variance experiment. A pure
function of the :class:`~autograder.grade.result.GradeResult`, like every format.
"""

from __future__ import annotations

from functools import lru_cache

from autograder.grade.figures import VarianceRow, WeightsFigure
from autograder.grade.html_page import esc, image, page, score_bar
from autograder.grade.report import by_message, carried_note, question_diagnoses
from autograder.grade.result import GradeResult
from autograder.scoring import QuestionScore

#: The question whose feedback shows the variance experiment's table.
VARIANCE_QUESTION = "dot_product_variance"
#: The reference experiment shown when the student's own rows are not there (d_k values and samples per row).
REFERENCE_D_KS = (1, 4, 16, 64, 256)
REFERENCE_SAMPLES = 4000
HEATMAP_CLASS = "heatmap"


def _points(value: float) -> str:
    return f"{value:g}"


def _header(result: GradeResult) -> str:
    parts = [
        f"<h1>{esc(result.assignment_id)}</h1>",
        f'<p class="muted">{esc(result.origin)}</p>',
        f'<p class="score">Score: {_points(result.score)} / {_points(result.max_score)}</p>',
        score_bar(result.score, result.max_score),
    ]
    if result.load_error:
        parts.append(f'<div class="note"><strong>Your file could not be graded.</strong><pre>{esc(result.load_error)}</pre></div>')
    parts += [f'<div class="note">Penalty: −{p.fraction:.0%} for {esc(p.reason)}</div>' for p in result.penalties]
    parts += [f'<div class="note">{esc(note)}</div>' for note in result.load_notes]
    return "\n".join(parts)


def _failures(question: QuestionScore) -> str:
    items = []
    for message, tests in by_message(question.failed_tests).items():
        what = esc(tests[0].description.rstrip(".")) if len(tests) == 1 else f"{len(tests)} tests"
        items.append(f"<li>{what}<pre>{esc(message)}</pre></li>")
    return f"<h3>What failed</h3>\n<ul>{''.join(items)}</ul>" if items else ""


def _diagnoses(question: QuestionScore) -> str:
    return "\n".join(
        f'<div class="diagnosis"><strong>Likely bug</strong> <code>{esc(bug)}</code><br>{esc(hint)}</div>'
        for bug, hint in question_diagnoses(question).items()
    )


def _weights_figure(figure: WeightsFigure) -> str:
    from autograder.grade.heatmaps import weights_png

    state = "your result is wrong here" if figure.failing else "your result is right here"
    shown = (len(figure.reference), len(figure.reference[0]) if figure.reference else 0)
    shape = f"; shown: a {shown[0]}×{shown[1]} slice of shape {tuple(figure.shape)}" if tuple(figure.shape) != shown else ""
    alt = f"Heatmaps of the attention weights for {figure.title}: expected on the left, yours on the right"
    caption = f"Attention weights, {esc(figure.title)}: expected (left) and yours (right); {state}{esc(shape)}."
    return f"<figure>{image(weights_png(figure), alt, HEATMAP_CLASS)}<figcaption>{caption}</figcaption></figure>"


def _figures(question: QuestionScore) -> str:
    figures = [f for test in question.tests for f in test.figures if isinstance(f, WeightsFigure)]
    return "\n".join(_weights_figure(f) for f in figures)


def _number(value: float | None, digits: int = 4) -> str:
    return "—" if value is None else f"{value:.{digits}g}"


def _variance_rows_table(rows: list[VarianceRow]) -> str:
    body = "".join(
        f"<tr><td>{row.d_k}</td><td>{_number(row.var_raw)}</td><td>≈ {row.d_k}</td>"
        f"<td>{_number(row.var_scaled)}</td><td>≈ 1</td></tr>"
        for row in sorted(rows, key=lambda r: r.d_k)
    )
    head = "<tr><th>d_k</th><th>your Var(q·k)</th><th>expected</th><th>your Var(q·k/√d_k)</th><th>expected</th></tr>"
    return f'<h3>Your variance experiment</h3><div class="table"><table>{head}{body}</table></div>'


@lru_cache(maxsize=1)
def _reference_variance_rows() -> tuple[tuple[int, float, float], ...]:
    from attn_reference.variance import variance_table

    table = variance_table(REFERENCE_D_KS, REFERENCE_SAMPLES)
    return tuple((int(d_k), float(raw), float(scaled)) for d_k, raw, scaled in table)


def _reference_variance_table() -> str:
    body = "".join(f"<tr><td>{d_k}</td><td>{raw:.3g}</td><td>{scaled:.3g}</td></tr>" for d_k, raw, scaled in _reference_variance_rows())
    head = "<tr><th>d_k</th><th>Var(q·k)</th><th>Var(q·k/√d_k)</th></tr>"
    return (f'<h3>The variance experiment (reference, {REFERENCE_SAMPLES:,} samples per row)</h3>'
            f'<div class="table"><table>{head}{body}</table></div>'
            "<p class=\"muted\">Var(q·k) grows like d_k; dividing by √d_k brings it back to 1.</p>")


def _variance(question: QuestionScore) -> str:
    if question.function != VARIANCE_QUESTION:
        return ""
    rows = [f for test in question.tests for f in test.figures if isinstance(f, VarianceRow)]
    return _variance_rows_table(rows) if rows else _reference_variance_table()


def _question(question: QuestionScore) -> str:
    state = "ok" if question.score == question.points else "fail"
    counts = f"{question.passed}/{len(question.tests)} tests passed" if question.tests else "not run"
    parts = [
        f'<section class="question" id="q{question.number}">',
        f'<h2>Q{question.number} <code>{esc(question.function)}</code> '
        f'<span class="{state}">{_points(question.score)} / {_points(question.points)}</span></h2>',
        score_bar(question.score, question.points),
        f'<p class="muted">{counts}</p>',
        *[f'<div class="note">{esc(line.removeprefix("- "))}</div>' for line in carried_note(question)],
        _failures(question), _diagnoses(question), _figures(question), _variance(question),
        "</section>",
    ]
    return "\n".join(part for part in parts if part)


def to_html(result: GradeResult) -> str:
    """The feedback page of one result: a whole, self-contained HTML document."""
    body = "\n".join([_header(result), *(_question(q) for q in result.questions),
                      f'<p class="muted">Graded in {result.execution_time:.2f} s (grader {esc(result.grader_version)}).</p>'])
    return page(f"{result.assignment_id}: {_points(result.score)} / {_points(result.max_score)}", body)
