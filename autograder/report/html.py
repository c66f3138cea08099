"""``feedback.html``: one graded submission as a page a student can read on a phone.

The score of every question; each failing test with its message (what was expected, what
came back); the named bugs with their hints; and pictures where they explain more than
text: the expected attention weights beside the student's for the worked example and for
one failing call of each question, and the table of the variance experiment. A pure
function of the :class:`~autograder.grade.result.GradeResult` and a language, like every
format: every label and message comes from the message catalog, rendered with each fact
escaped (:func:`autograder.i18n.render` with :func:`autograder.escape.html_text`).
"""

from __future__ import annotations

from functools import lru_cache

from autograder.escape import html_text
from autograder.grade.figures import VarianceRow, WeightsFigure
from autograder.report.cases import failing_cases
from autograder.report.chosen import is_observed
from autograder.report.page import image, page, score_bar
from autograder.report.text import carried_note, description, more_failures, question_diagnoses, shared_tolerances, tolerance_line
from autograder.grade.result import GradeResult
from autograder.i18n import msg, msg_n, render
from autograder.languages import SOURCE_LANGUAGE
from autograder.scoring import QuestionScore

#: The question whose feedback shows the variance experiment's table.
VARIANCE_QUESTION = "dot_product_variance"
#: The reference experiment shown when the student's own rows are not there (d_k values and samples per row).
REFERENCE_D_KS = (1, 4, 16, 64, 256)
REFERENCE_SAMPLES = 4000
HEATMAP_CLASS = "heatmap"


def _points(value: float) -> str:
    return f"{value:g}"


def _say(message, language: str) -> str:
    """A catalog message (or text) in ``language`` as HTML: the template's text and each fact escaped apart."""
    return render(message, language, html_text)


def _header(result: GradeResult, language: str) -> str:
    score = msg("Score: {score} / {max_score}", score=_points(result.score), max_score=_points(result.max_score))
    parts = [
        f"<h1>{html_text(result.assignment_id)}</h1>",
        f'<p class="muted">{html_text(result.origin)}</p>',
        f'<p class="score">{_say(score, language)}</p>',
        score_bar(result.score, result.max_score),
    ]
    if result.load_error:
        parts.append(f'<div class="note"><strong>{_say(msg("Your file could not be graded."), language)}</strong>'
                     f'<pre>{_say(result.load_error, language)}</pre></div>')
    parts += [f'<div class="note">{_say(msg("Penalty: −{percent} for {reason}", percent=f"{p.fraction:.0%}", reason=p.reason), language)}</div>'
              for p in result.penalties]
    parts += [f'<div class="note">{_say(note, language)}</div>' for note in result.load_notes]
    return "\n".join(parts)


def _failures(question: QuestionScore, language: str, verbose: bool = False, tolerance: bool = True) -> str:
    """The cases shown (at most a few that differ, or all when ``verbose``), how many more fail, and the tolerance."""
    cases = failing_cases(question.failed_tests, verbose)
    items = []
    for case in cases.shown:
        what = html_text(description(case.tests[0].description, language)) if len(case.tests) == 1 \
            else _say(msg_n("{n} test", "{n} tests", len(case.tests)), language)
        items.append(f"<li>{what}<pre>{_say(case.message, language)}</pre></li>")
    further = more_failures(cases)
    if further is not None:
        items.append(f"<li>{_say(further, language)}</li>")
    note = f'<p class="muted">{_say(tolerance_line(cases.tolerances), language)}</p>' if tolerance and cases.tolerances else ""
    return f"<h3>{_say(msg('What failed'), language)}</h3>\n<ul>{''.join(items)}</ul>{note}" if items else ""


def _diagnoses(question: QuestionScore, language: str) -> str:
    return "\n".join(
        f'<div class="diagnosis"><strong>{_say(msg("Observed"), language)}</strong><br>{_say(hint, language)}</div>'
        if is_observed(bug) else
        f'<div class="diagnosis"><strong>{_say(msg("Likely bug"), language)}</strong> <code>{html_text(bug)}</code><br>'
        f'{_say(hint, language)}</div>'
        for bug, hint in question_diagnoses(question).items()
    )


def _weights_figure(figure: WeightsFigure, language: str) -> str:
    from autograder.report.heatmaps import weights_png

    state = msg("your result is wrong here") if figure.failing else msg("your result is right here")
    shown = (len(figure.reference), len(figure.reference[0]) if figure.reference else 0)
    shape = msg("; shown: a {rows}×{columns} slice of shape {shape}", rows=str(shown[0]), columns=str(shown[1]),
                shape=str(tuple(figure.shape))) if tuple(figure.shape) != shown else ""
    alt = msg("Heatmaps of the attention weights for {title}: expected on the left, yours on the right", title=figure.title)
    caption = msg("Attention weights, {title}: expected (left) and yours (right); {state}{shape}.", title=figure.title,
                  state=state, shape=shape)
    return (f"<figure>{image(weights_png(figure), render(alt, language), HEATMAP_CLASS)}"
            f"<figcaption>{_say(caption, language)}</figcaption></figure>")


def _figures(question: QuestionScore, language: str) -> str:
    """The heatmap pairs of the question's kept weights, but those that cannot show its failure."""
    from autograder.report.heatmaps import shows_the_failure

    figures = [f for test in question.tests for f in test.figures if isinstance(f, WeightsFigure) and shows_the_failure(f)]
    return "\n".join(_weights_figure(f, language) for f in figures)


def _number(value: float | None, digits: int = 4) -> str:
    return "—" if value is None else f"{value:.{digits}g}"


def _variance_rows_table(rows: list[VarianceRow], language: str) -> str:
    body = "".join(
        f"<tr><td>{row.d_k}</td><td>{_number(row.var_raw)}</td><td>≈ {row.d_k}</td>"
        f"<td>{_number(row.var_scaled)}</td><td>≈ 1</td></tr>"
        for row in sorted(rows, key=lambda r: r.d_k)
    )
    yours, expected = _say(msg("your {quantity}", quantity="Var(q·k)"), language), _say(msg("expected"), language)
    yours_scaled = _say(msg("your {quantity}", quantity="Var(q·k/√d_k)"), language)
    head = f"<tr><th>d_k</th><th>{yours}</th><th>{expected}</th><th>{yours_scaled}</th><th>{expected}</th></tr>"
    return f'<h3>{_say(msg("Your variance experiment"), language)}</h3><div class="table"><table>{head}{body}</table></div>'


@lru_cache(maxsize=1)
def _reference_variance_rows() -> tuple[tuple[int, float, float], ...]:
    from attn_reference.variance import variance_table

    table = variance_table(REFERENCE_D_KS, REFERENCE_SAMPLES)
    return tuple((int(d_k), float(raw), float(scaled)) for d_k, raw, scaled in table)


def _reference_variance_table(language: str) -> str:
    body = "".join(f"<tr><td>{d_k}</td><td>{raw:.3g}</td><td>{scaled:.3g}</td></tr>" for d_k, raw, scaled in _reference_variance_rows())
    head = "<tr><th>d_k</th><th>Var(q·k)</th><th>Var(q·k/√d_k)</th></tr>"
    title = msg("The variance experiment (reference, {samples} samples per row)", samples=f"{REFERENCE_SAMPLES:,}")
    note = msg("Var(q·k) grows like d_k; dividing by √d_k brings it back to 1.")
    return (f'<h3>{_say(title, language)}</h3><div class="table"><table>{head}{body}</table></div>'
            f'<p class="muted">{_say(note, language)}</p>')


def _variance(question: QuestionScore, language: str) -> str:
    if question.function != VARIANCE_QUESTION:
        return ""
    rows = [f for test in question.tests for f in test.figures if isinstance(f, VarianceRow)]
    return _variance_rows_table(rows, language) if rows else _reference_variance_table(language)


def _question(question: QuestionScore, language: str, verbose: bool = False, tolerance: bool = True) -> str:
    state = "ok" if question.score == question.points else "fail"
    counts = msg("{passed}/{total} tests passed", passed=str(question.passed), total=str(len(question.tests))) \
        if question.tests else msg("not run")
    parts = [
        f'<section class="question" id="q{question.number}">',
        f'<h2>Q{question.number} <code>{html_text(question.function)}</code> '
        f'<span class="{state}">{_points(question.score)} / {_points(question.points)}</span></h2>',
        score_bar(question.score, question.points),
        f'<p class="muted">{_say(counts, language)}</p>',
        *[f'<div class="note">{line}</div>' for line in carried_note(question, language, html_text)],
        _diagnoses(question, language), _failures(question, language, verbose, tolerance), _figures(question, language),
        _variance(question, language),
        "</section>",
    ]
    return "\n".join(part for part in parts if part)


def to_html(result: GradeResult, language: str = SOURCE_LANGUAGE, verbose: bool = False) -> str:
    """The feedback page of one result in ``language``: a whole, self-contained HTML document (``verbose``: every
    failing case, not only a few that differ); a tolerance every question's cases share is said once, at the top."""
    graded = msg("Graded in {seconds} s (grader {version}).", seconds=f"{result.execution_time:.2f}", version=result.grader_version)
    shared = shared_tolerances(result.questions, verbose)
    note = [f'<p class="muted">{_say(tolerance_line(shared), language)}</p>'] if shared else []
    body = "\n".join([_header(result, language), *note, *(_question(q, language, verbose, not shared) for q in result.questions),
                      f'<p class="muted">{_say(graded, language)}</p>'])
    return page(f"{result.assignment_id}: {_points(result.score)} / {_points(result.max_score)}", body, lang=language)
