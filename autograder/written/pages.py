"""The HTML of the review page: one answer, its rubric, the comment, progress per question; every text escaped.

Everything from a student (the answer, their id when shown) and everything else too passes through
:func:`autograder.escape.html_text`; catalog messages are rendered with it (:func:`autograder.i18n.render`).
The page's script (``static/review.js``) reads what it needs from ``data-`` attributes and writes
only with ``textContent``.
"""

from __future__ import annotations

from urllib.parse import urlencode

from autograder.escape import html_text
from autograder.i18n import msg, render

KEYS_HELP = msg("Keys: 1-9 apply or remove a rubric item, 0 graded with no item, c comment, Esc leave the comment, "
                "j or → next, k or ← previous, u only ungraded, s show or hide the student.")
UNANSWERED = msg("(no answer: the student left this question unanswered)")


def _say(message, language: str) -> str:
    return render(message, language, html_text)


def link(base: str, question: str, key: str | None, ungraded: bool, reveal: bool) -> str:
    """The page of answer ``key`` of ``question`` (its first answer when None) with the filter and reveal kept."""
    query = urlencode({k: "1" for k, on in (("ungraded", ungraded), ("reveal", reveal)) if on})
    return f"{base}/q/{question}" + (f"/{key}" if key else "") + (f"?{query}" if query else "")


def _tabs(review, base: str, current: str, ungraded: bool, reveal: bool, language: str) -> str:
    tabs = []
    for question, graded, total in review.progress():
        label = _say(msg("{question}: {graded} of {total} graded", question=question.id, graded=graded, total=total), language)
        mark = ' aria-current="page"' if question.id == current else ""
        tabs.append(f'<a class="tab" href="{html_text(link(base, question.id, None, ungraded, reveal))}"{mark}>{label}</a>')
    return f'<nav class="tabs">{"".join(tabs)}</nav>'


def _rubric(question, applied, language: str) -> str:
    items = []
    for number, item in enumerate(question.rubric, start=1):
        checked = " checked" if item.id in applied else ""
        items.append(f'<li><label><input type="checkbox" data-item="{html_text(item.id)}"{checked}> '
                     f'<kbd>{number}</kbd> {html_text(item.text_in(language))} '
                     f'<span class="muted">(+{item.points:g})</span></label></li>')
    return f'<ol class="rubric">{"".join(items)}</ol>'


def _who(place, language: str) -> str:
    return _say(msg("Student: {student}", student=place.row.student), language)


def answer_page(review, base: str, question, place, ungraded: bool, reveal: bool, language: str) -> str:
    """The page of one answer (see the module)."""
    row = place.row
    nav = {name: html_text(link(base, question.id, key, ungraded, reveal)) if key else ""
           for name, key in (("next", place.next), ("previous", place.previous))}
    who = _who(place, language) if reveal else _say(
        msg("Answer {position} of {total} (student hidden: press s to show)", position=place.position, total=place.total),
        language)
    answer = f'<pre class="answer" id="answer">{html_text(row.answer)}</pre>' if row.answered else \
        f'<p class="answer unanswered" id="answer">{_say(UNANSWERED, language)}</p>'
    score = question.score_of(row.items)
    state = _say(msg("graded by {who}", who=row.graded_by or "?"), language) if row.graded else _say(msg("not graded yet"), language)
    body = f"""{_tabs(review, base, question.id, ungraded, reveal, language)}
<main id="review" data-key="{html_text(place.key)}" data-question="{html_text(question.id)}" data-version="{row.version}"
 data-save="{html_text(base)}/save" data-next="{nav['next']}" data-previous="{nav['previous']}"
 data-filter="{html_text(link(base, question.id, place.key, not ungraded, reveal))}"
 data-reveal="{html_text(link(base, question.id, place.key, ungraded, not reveal))}"
 data-saving="{_say(msg("Saving…"), language)}" data-failed="{_say(msg("Not saved: the review server did not answer."), language)}">
<h1>{html_text(question.prompt_in(language))}</h1>
<p class="who" id="who">{who}</p>
{answer}
{_rubric(question, row.items, language)}
<p><label for="comment">{_say(msg("Comment for the student"), language)}</label><br>
<textarea id="comment" rows="3">{html_text(row.comment)}</textarea></p>
<p><span id="score">{score:g}</span> / {question.points:g} · <span id="state">{state}</span></p>
<p id="status" role="status" aria-live="polite"></p>
<p class="muted">{_say(KEYS_HELP, language)}</p>
</main>"""
    return _frame(base, review, body, language)


def empty_page(review, base: str, question, ungraded: bool, reveal: bool, language: str) -> str:
    """The page of a question none of whose answers fits the filter."""
    text = _say(msg("No ungraded answer left for this question.") if ungraded else msg("No answer to this question yet."), language)
    body = f'{_tabs(review, base, question.id, ungraded, reveal, language)}<main><p id="status">{text}</p></main>'
    return _frame(base, review, body, language)


def _frame(base: str, review, body: str, language: str) -> str:
    title = _say(msg("Written answers of {assignment}", assignment=review.assignment.title_in(language)), language)
    return (f'<!DOCTYPE html>\n<html lang="{html_text(language)}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title}</title>'
            f'<link rel="stylesheet" href="{html_text(base)}/static/review.css"></head><body>{body}'
            f'<script src="{html_text(base)}/static/review.js"></script></body></html>\n')
