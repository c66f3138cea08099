"""What an English markdown text and its translation must share, and where they differ.

A translation changes the words, never the facts or the layout. For a markdown cell and its
translation:

* the blocks (paragraphs, headings, lists, tables, display math, code fences, HTML)
  correspond one to one: the same number, of the same kinds, in the same order; headings
  keep their level, lists their number of items, tables their number of rows and columns;
* display math and HTML comments (the points-table placeholder) are byte-identical, code
  fences hold the same commands (only their ``#`` comments may be translated), and HTML
  blocks use the same tags;
* every inline formula (``$...$``), inline code span and number of the English text
  appears in the translation too (a translation may add some, never drop or change one).

So no paragraph is missing its translation, and the numbers, shapes and names a student
reads are the ones the English reader sees. The text is read by a Markdown parser
(markdown-it-py, CommonMark with tables and dollar math, as Jupyter renders notebooks), so
nested lists, code fences inside list items and ``$`` inside code spans are what they are.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin

#: A number in running text: digits not glued to ASCII letters (hw1, CS231n) or other digits.
NUMBER = re.compile(r"(?<![A-Za-z0-9_.])\d+(?:\.\d+)?(?![A-Za-z0-9_])")
#: Kinds of block whose text must be identical in both languages (a fence's comments aside).
VERBATIM_KINDS = ("fence", "math", "comment")
_COMMENT = re.compile(r"(^|\s)#.*$")
_SPACES = re.compile(r"\s+")
_HTML_TAG = re.compile(r"</?([a-zA-Z][a-zA-Z0-9]*)")
#: Top-level block tokens: the kind each stands for.
_KINDS = {"heading_open": "heading", "paragraph_open": "paragraph", "bullet_list_open": "list",
          "ordered_list_open": "list", "table_open": "table", "math_block": "math", "fence": "fence",
          "code_block": "fence", "html_block": "html", "blockquote_open": "quote", "hr": "rule"}


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table").use(dollarmath_plugin, double_inline=True)


@dataclass(frozen=True)
class Block:
    """One block of a markdown text.

    Attributes
    ----------
    kind : str
        ``paragraph``, ``heading``, ``list``, ``table``, ``math``, ``fence``, ``html``, ``comment``,
        ``quote`` or ``rule``.
    shape : tuple
        What must match across languages besides the kind: a heading's level, a list's
        items, a table's rows and columns, an HTML block's tags.
    text : str
        The block's markdown.
    """

    kind: str
    shape: tuple
    text: str


def _closing(tokens: list[Token], start: int) -> int:
    """Index of the token that closes the top-level block opened at ``start`` (itself for a leaf block)."""
    if tokens[start].nesting != 1:
        return start
    depth = 0
    for index in range(start, len(tokens)):
        depth += tokens[index].nesting
        if depth == 0:
            return index
    return len(tokens) - 1


def _shape(kind: str, inner: list[Token]) -> tuple:
    opening = inner[0]
    if kind == "heading":
        return (int(opening.tag[1:]),)
    if kind == "list":
        return (sum(1 for t in inner if t.type == "list_item_open" and t.level == opening.level + 1),)
    if kind == "table":
        rows = sum(1 for t in inner if t.type == "tr_open")
        return rows, sum(1 for t in inner if t.type == "th_open")
    if kind == "html":
        return tuple(_HTML_TAG.findall(opening.content))
    return ()


def _parsed_blocks(markdown: str) -> list[tuple[Block, list[Token]]]:
    tokens, lines = _parser().parse(markdown), markdown.split("\n")
    found, index = [], 0
    while index < len(tokens):
        token, end = tokens[index], _closing(tokens, index)
        kind = _KINDS.get(token.type)
        if kind is not None and token.level == 0:
            inner = tokens[index:end + 1]
            first, last = token.map or (0, 0)
            text = "\n".join(lines[first:last]).rstrip("\n")
            if kind == "html" and text.lstrip().startswith("<!--"):
                kind = "comment"
            found.append((Block(kind, _shape(kind, inner), text), inner))
        index = end + 1
    return found


def split_blocks(markdown: str) -> list[str]:
    """The markdown text of each top-level block (a code fence is one block, blank lines and all)."""
    return [block.text for block, _ in _parsed_blocks(markdown)]


def blocks(markdown: str) -> list[Block]:
    """The classified top-level blocks of a markdown text."""
    return [block for block, _ in _parsed_blocks(markdown)]


@dataclass(frozen=True)
class Facts:
    """The formulas, code spans and numbers of a text, which every translation keeps."""

    display_math: Counter
    inline_math: frozenset
    inline_code: frozenset
    numbers: frozenset


def _spans(token: Token, facts: dict) -> None:
    """Collect the inline facts of one inline token's children."""
    for child in token.children or ():
        content = _SPACES.sub(" ", child.content)
        if child.type == "code_inline":
            facts["code"].add(f"`{content}`")
        elif child.type == "math_inline":
            facts["inline"].add(f"${content}$")
        elif child.type == "math_inline_double":
            facts["display"][f"$${child.content}$$"] += 1
        elif child.type == "text":
            facts["numbers"].update(NUMBER.findall(child.content))


def markdown_facts(markdown: str) -> Facts:
    """The :class:`Facts` of a markdown text; numbers are read from its prose only (not code, math or markup)."""
    facts = {"display": Counter(), "inline": set(), "code": set(), "numbers": set()}
    for token in _parser().parse(markdown):
        if token.type == "math_block":
            facts["display"][f"$${token.content.strip()}$$"] += 1
        elif token.type == "inline":
            _spans(token, facts)
        elif token.type == "html_block" and not token.content.lstrip().startswith("<!--"):
            facts["numbers"].update(NUMBER.findall(re.sub(r"<[^>]*>", " ", token.content)))
    return Facts(facts["display"], frozenset(facts["inline"]), frozenset(facts["code"]), frozenset(facts["numbers"]))


def kept_facts_problems(english: Facts, translation: Facts) -> list[str]:
    """What the translation drops or changes of the English text's facts."""
    problems = []
    if english.display_math != translation.display_math:
        changed = sorted((english.display_math - translation.display_math).elements())
        problems.append(f"display math differs (English only: {[m[:50] for m in changed]})")
    for name, ours, theirs in (
        ("inline math", english.inline_math, translation.inline_math),
        ("inline code", english.inline_code, translation.inline_code),
        ("numbers", english.numbers, translation.numbers),
    ):
        missing = sorted(ours - theirs)
        if missing:
            problems.append(f"{name} missing from the translation: {missing}")
    return problems


def verbatim(block: Block) -> str:
    """What of a block must be identical in both languages: a fence without its ``#`` comments, else all of it."""
    if block.kind != "fence":
        return block.text
    return "\n".join(_COMMENT.sub("", line).rstrip() for line in block.text.split("\n"))


def _describe(block: Block) -> str:
    return f"{block.kind}{list(block.shape) if block.shape else ''} {block.text.split(chr(10))[0][:40]!r}"


def block_problems(english: str, translation: str) -> list[str]:
    """Where the blocks of a translation do not correspond to the English blocks."""
    ours, theirs = blocks(english), blocks(translation)
    if [(b.kind, b.shape) for b in ours] == [(b.kind, b.shape) for b in theirs]:
        return [
            f"block {n} ({a.kind}) must be identical in both languages: {a.text[:40]!r} vs {b.text[:40]!r}"
            for n, (a, b) in enumerate(zip(ours, theirs), start=1)
            if a.kind in VERBATIM_KINDS and verbatim(a) != verbatim(b)
        ]
    if len(ours) != len(theirs):
        return [f"the English text has {len(ours)} blocks, the translation {len(theirs)}: a paragraph is missing or extra"]
    first = next(n for n, (a, b) in enumerate(zip(ours, theirs)) if (a.kind, a.shape) != (b.kind, b.shape))
    return [f"block {first + 1} is {_describe(ours[first])} in English but {_describe(theirs[first])} in the translation"]


def parallel_problems(english: str, translation: str) -> list[str]:
    """Every way a markdown translation departs from its English text (see the module docstring)."""
    return block_problems(english, translation) + kept_facts_problems(markdown_facts(english), markdown_facts(translation))
