"""A hostile corpus of student text, an honest control, and the real parsers its outputs are read with.

Each output format is checked by parsing it as what displays it would: Markdown rendered to
HTML (markdown-it-py, CommonMark with GitHub's tables and raw HTML allowed, as in a job
summary) then read with :mod:`html.parser`; HTML with :mod:`html.parser`; XML with
ElementTree; CSV with :mod:`csv`; JSON with :mod:`json`.
"""

from __future__ import annotations

import re
import unicodedata
from html.parser import HTMLParser

from markdown_it import MarkdownIt

#: Every kind of hostile text, one a line of the corpus (what each attacks in a comment).
CORPUS = (
    "L" * 2000,  # a very long line
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<a href="http://evil.example/a">click</a> <b onclick=alert(1)>bold</b> <!-- hidden -->',
    "![pixel](http://evil.example/p.png) [click](javascript:alert(1)) [ref][r]",
    "[r]: http://evil.example/ref",  # a link reference definition
    "<http://evil.example/auto> www.evil.example http://evil.example/bare mail@evil.example",
    "| cell | break | --- |",
    "`code` ``two ` ticks`` ```",
    "# heading",
    "- item",
    "1. ordered",
    "> quote",
    "    indented code",
    "---",
    "===",
    "**bold** __bold__ *em* _em_ ~~strike~~ $x^2$ $$y$$ [^1]",
    "&lt;b&gt; &amp; &#60;script&#62; &#x3C;",
    "ends with a backslash \\",
    "<br> <br/> </td></tr></table>",
    "\x1b[31mred\x1b[0m \x1b]8;;http://evil.example\x07terminal link\x1b]8;;\x07 \x9b2J",
    "[red]rich[/red] [link=https://evil.example]rich link[/link] [bold]",
    '=HYPERLINK("http://evil.example","x") +1 -1 @SUM(A1) \t=1',
    "xml \x00\x01\x08\x0b\x0c\x1f\x7f ]]> <![CDATA[x]]> \ufffe",
    "bidi \u202egnp.exe\u202c \u2066isolate\u2069 \u200fmark",
    "\rcarriage return overwrite",
    "tab\tseparated",
)
#: The corpus as one text of many lines (an exception message, printed output).
HOSTILE = "\n".join(CORPUS)
#: Short enough for a note about a skipped statement (its first 200 characters are kept) and a file name.
HOSTILE_NOTE = "<img src=x onerror=alert(1)>![p](http://evil.example/p.png)|`x`\x1b[31m[red]r[/red]\u202e"
#: A file name: no slash, at most 255 bytes.
HOSTILE_FILE = "<img src=x onerror=alert(1)>[x](javascript:alert(1))|=cmd`\u202e\x1b[31m.py"
#: A student id with a formula, markup, a line break and a direction override.
HOSTILE_ID = '=HYPERLINK("http://evil.example","x")\n<script>alert(1)</script>\u202e'
#: Ordinary text that looks like syntax: it must read exactly so in every output.
ORDINARY = "a < b, x|y, 2*3 & 1.0 [1] (see #2) ~ok_ a_b_c 100% \"q\" 'q' <= >= -1 @home = 3 www or mail"

#: Characters nobody may be shown: C0 and C1 controls but tab and newline, direction marks, non-characters.
_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufffe\uffff]")
#: What starts a link or an autolink anywhere in raw Markdown (GitHub's extended autolinks included).
AUTOLINK_TRIGGER = re.compile(r"(?:https?|ftp|mailto|xmpp|javascript):|www\.|\w@\w")
#: Tags the job summary's own Markdown makes (heading, paragraph, bold, list, table, code, line break).
SUMMARY_TAGS = {"h2", "p", "strong", "ul", "li", "table", "thead", "tbody", "tr", "th", "td", "code", "br"}
#: Text of any kind a spreadsheet runs as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
GITHUB_MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def visible(text: str) -> str:
    """What a reader must see of ``text``: all of it but the characters that steer a display."""
    return _HIDDEN.sub("", text)


def hidden_characters(text: str) -> list[str]:
    """The steering characters in ``text`` (none may reach an output)."""
    return sorted({f"U+{ord(c):04X}" for c in text if _HIDDEN.match(c) or unicodedata.category(c) == "Cs"})


class Page(HTMLParser):
    """An HTML document as its elements, attributes and text; the text of each table cell (``<br>`` as a newline)."""

    def __init__(self, document: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.cells: list[str] = []
        self._text: list[str] = []
        self._cell: list[str] | None = None
        self.feed(document)
        self.close()

    @property
    def text(self) -> str:
        return "".join(self._text)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag in ("td", "th"):
            self._cell = []
        elif tag == "br":
            self.handle_data("\n")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        self._text.append(data)
        if self._cell is not None:
            self._cell.append(data)

    def tags(self) -> set[str]:
        return {tag for tag, _ in self.elements}

    def unsafe(self) -> list[str]:
        """Scripts, links, event handlers and anything loaded from outside the page."""
        found = [tag for tag, _ in self.elements if tag in ("script", "a", "iframe", "object", "embed", "form", "base")]
        for tag, attrs in self.elements:
            found += [f"{tag} {name}" for name in attrs if name.startswith("on") or name in ("href", "action", "formaction")]
            if "src" in attrs and not (attrs["src"] or "").startswith("data:"):
                found.append(f"{tag} src={attrs['src']}")
        return found


def rendered_markdown(source: str) -> Page:
    """Markdown as GitHub shows a job summary, parsed."""
    return Page(GITHUB_MARKDOWN.render(source))
