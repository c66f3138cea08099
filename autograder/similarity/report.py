"""The class report's similarity section: the flagged pairs, per graded function, their matching lines side by side.

A flag asks the instructor to look; it changes no score. Every text (student ids, their code)
goes through :func:`autograder.escape.html_text`.
"""

from __future__ import annotations

from autograder.escape import html_text
from autograder.similarity.compare import MIN_SHARED, THRESHOLD, SimilarPair
from autograder.student_text import clean_name

#: Lines of one matching region shown (the rest is summarised).
SHOWN_LINES = 40
SIMILARITY_CLASS = "similarity"


def _region(source: str, ranges: tuple[tuple[int, int], ...]) -> str:
    lines = source.splitlines()
    parts = []
    for start, end in ranges:
        shown = lines[start - 1:min(end, start - 1 + SHOWN_LINES)]
        text = "\n".join(f"{n:4d}  {line}" for n, line in enumerate(shown, start=start))
        more = f"\n… {end - start + 1 - SHOWN_LINES} more lines" if end - start + 1 > SHOWN_LINES else ""
        parts.append(f"<pre>{html_text(text + more)}</pre>")
    return "".join(parts)


def _pair(pair: SimilarPair, sources: dict[str, str]) -> str:
    a, b = html_text(clean_name(pair.a)), html_text(clean_name(pair.b))
    rows = []
    for match in pair.functions:
        rows.append(f"<h4><code>{html_text(match.function)}</code> · {match.similarity:.0%} alike ({match.shared} shared)</h4>"
                    f'<div class="side-by-side"><div><strong>{a}</strong>{_region(sources.get(pair.a, ""), match.lines_a)}</div>'
                    f'<div><strong>{b}</strong>{_region(sources.get(pair.b, ""), match.lines_b)}</div></div>')
    return (f'<details class="{SIMILARITY_CLASS}"><summary><strong>{a}</strong> and <strong>{b}</strong>: '
            f"{pair.similarity:.0%} alike</summary>{''.join(rows)}</details>")


#: Two columns where there is room, one on a phone.
STYLE = ("<style>.side-by-side { display: grid; grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr)); gap: .5rem; }"
         " .side-by-side > div { min-width: 0; } details.similarity { margin: .5rem 0; }</style>")


def similarity_section(assignment_id: str, pairs: list[SimilarPair], sources: dict[str, str]) -> str:
    """The section's HTML: what was compared, then each flagged pair (collapsed), most similar first."""
    head = (f"<h2>Similar submissions: {html_text(assignment_id)}</h2><p class=\"muted\">{len(sources)} submissions "
            f"compared per graded function (the release's stub and code most of the class shares left out); a pair is "
            f"flagged from {THRESHOLD:.0%} alike and {MIN_SHARED} shared fingerprints. A flag is a reason to look, never a "
            "penalty: no score changes.</p>")
    if not pairs:
        return STYLE + head + "<p>No pair is flagged.</p>"
    return STYLE + head + "".join(_pair(pair, sources) for pair in pairs)


def assignment_similarity(course, assignment, folder):
    """(pairs, sources) of a class folder of ``assignment``: :func:`~autograder.similarity.compare.similar_pairs` of its entries."""
    from autograder.similarity.compare import similar_pairs
    from autograder.similarity.sources import class_sources, release_stub

    releases = course.layout.releases  # the course's own releases, not this project's
    sources = class_sources(course, assignment, folder, releases)
    return similar_pairs(sources, assignment.functions, release_stub(assignment, releases)), sources
