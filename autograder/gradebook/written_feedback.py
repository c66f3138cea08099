"""The written answers in a student's feedback: per question the points, the rubric items and the TA's comment.

Added to ``feedback.txt`` and ``feedback.html`` after the autograded part, in the student's language
(the prompts and rubric items are in course.yml in every language; the comment is the TA's, shown as
written). Every text goes through the format's escaping function.
"""

from __future__ import annotations

from autograder.escape import html_text, terminal_text
from autograder.gradebook.written_scores import WRITTEN
from autograder.i18n import msg, render
from autograder.languages import SOURCE_LANGUAGE

TITLE = msg("Written answers (graded by people)")


def _total(row, language: str) -> str:
    return render(msg("Total with the written answers: {score} of {points} points", score=f"{row.score:g}",
                      points=f"{row.max_score:g}"), language)


def _text_in(texts, language: str) -> str:
    return texts.get(language) or texts.get(SOURCE_LANGUAGE) or "" if isinstance(texts, dict) else ""


def _lines(entry: dict, language: str) -> tuple[str, list[tuple[bool, str]], str]:
    """The heading of one question, its rubric items (applied?, text) and the comment, as plain text."""
    if not entry.get("graded"):
        state = render(msg("not graded yet") if entry.get("answered") else msg("no answer"), language)
        heading = render(msg("Written question {number}: {state}", number=entry.get("number", 0), state=state), language)
        return heading, [], ""
    heading = render(msg("Written question {number}: {score} of {points} points", number=entry.get("number", 0),
                         score=f"{float(entry.get('score', 0)):g}", points=f"{float(entry.get('points', 0)):g}"), language)
    items = [(bool(i.get("applied")), f"{_text_in(i.get('description'), language)} (+{float(i.get('points', 0)):g})")
             for i in entry.get("items") or [] if isinstance(i, dict)]
    comment = entry.get("comment") or ""
    return heading, items, render(msg("Comment: {comment}", comment=comment), language) if comment else ""


def _entries(row) -> list[dict]:
    found = row.report_dict.get(WRITTEN)
    return [e for e in found if isinstance(e, dict)] if isinstance(found, list) else []


def written_text(row, language: str) -> str:
    """The section of ``feedback.txt`` ("" for a row without written answers)."""
    entries = _entries(row)
    if not entries:
        return ""
    lines = ["", terminal_text(render(TITLE, language))]
    for entry in entries:
        heading, items, comment = _lines(entry, language)
        lines.append(terminal_text(f"  {heading}"))
        lines += [terminal_text(f"    [{'x' if applied else ' '}] {text}") for applied, text in items]
        lines += [terminal_text(f"    {comment}")] if comment else []
    return "\n".join([*lines, terminal_text(_total(row, language))]) + "\n"


def written_html(row, language: str) -> str:
    """The section of ``feedback.html`` ("" for a row without written answers)."""
    entries = _entries(row)
    if not entries:
        return ""
    parts = [f"<h2>{html_text(render(TITLE, language))}</h2>"]
    for entry in entries:
        heading, items, comment = _lines(entry, language)
        listed = "".join(f'<li class="{"ok" if applied else "muted"}">{"✓" if applied else "✗"} {html_text(text)}</li>'
                         for applied, text in items)
        parts.append(f'<section class="question written"><h3>{html_text(heading)}</h3>'
                     + (f"<ul>{listed}</ul>" if listed else "") + (f"<pre>{html_text(comment)}</pre>" if comment else "")
                     + "</section>")
    return "\n".join([*parts, f'<p class="score">{html_text(_total(row, language))}</p>'])


def with_written(format_name: str, text: str, row, language: str) -> str:
    """The feedback file ``text`` of one format with the written section added (other formats unchanged)."""
    if format_name == "text":
        return text + written_text(row, language)
    if format_name == "html" and "</body>" in text:
        at = text.rindex("</body>")
        return text[:at] + written_html(row, language) + "\n" + text[at:]
    return text
