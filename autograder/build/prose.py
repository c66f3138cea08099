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
reads are the ones the English reader sees.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

FENCE = "```"
_LIST_ITEM = re.compile(r"^(\d+\.|[*-]) ")
_HTML_TAG = re.compile(r"</?([a-zA-Z]+)[^>]*>")
_INLINE_CODE = re.compile(r"`[^`]+`")
_DISPLAY_MATH = re.compile(r"\$\$.+?\$\$", re.DOTALL)
_INLINE_MATH = re.compile(r"\$[^$]+\$")
_SPACES = re.compile(r"\s+")
#: A number in running text: digits not glued to ASCII letters (hw1, CS231n) or other digits.
NUMBER = re.compile(r"(?<![A-Za-z0-9_.])\d+(?:\.\d+)?(?![A-Za-z0-9_])")
_FENCED = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
#: Kinds of block whose text must be identical in both languages (a fence's comments aside).
VERBATIM_KINDS = ("fence", "math", "comment")
_COMMENT = re.compile(r"(^|\s)#.*$")


@dataclass(frozen=True)
class Block:
    """One block of a markdown text.

    Attributes
    ----------
    kind : str
        ``paragraph``, ``heading``, ``list``, ``table``, ``math``, ``fence``, ``html`` or ``comment``.
    shape : tuple
        What must match across languages besides the kind: a heading's level, a list's
        items, a table's rows and columns, an HTML block's tags.
    text : str
        The block's markdown.
    """

    kind: str
    shape: tuple
    text: str


def split_blocks(markdown: str) -> list[str]:
    """The blank-line separated blocks of ``markdown``; a code fence is one block, blank lines and all."""
    blocks, current, in_fence = [], [], False
    for line in markdown.split("\n"):
        if line.strip().startswith(FENCE):
            in_fence = not in_fence
        if not line.strip() and not in_fence:
            if current:
                blocks.append("\n".join(current))
            current = []
            continue
        current.append(line)
    if current:
        blocks.append("\n".join(current))
    return blocks


def classify(text: str) -> Block:
    """The :class:`Block` of one block's text."""
    lines = text.split("\n")
    first = lines[0].lstrip()
    if first.startswith(FENCE):
        return Block("fence", (), text)
    if first.startswith("<!--"):
        return Block("comment", (), text)
    if first.startswith("<"):
        return Block("html", tuple(_HTML_TAG.findall(text)), text)
    if first.startswith("#"):
        return Block("heading", (len(first) - len(first.lstrip("#")),), text)
    if text.startswith("$$") and text.endswith("$$"):
        return Block("math", (), text)
    if all(line.lstrip().startswith("|") for line in lines):
        return Block("table", (len(lines), lines[0].count("|")), text)
    if _LIST_ITEM.match(lines[0]):
        return Block("list", (sum(1 for line in lines if _LIST_ITEM.match(line)),), text)
    return Block("paragraph", (), text)


def blocks(markdown: str) -> list[Block]:
    """The classified blocks of a markdown text."""
    return [classify(text) for text in split_blocks(markdown)]


@dataclass(frozen=True)
class Facts:
    """The formulas, code spans and numbers of a text, which every translation keeps."""

    display_math: Counter
    inline_math: frozenset
    inline_code: frozenset
    numbers: frozenset


def markdown_facts(markdown: str) -> Facts:
    """The :class:`Facts` of a markdown text; numbers are read from its prose only."""
    text = _FENCED.sub(" ", markdown)
    code = _INLINE_CODE.findall(text)
    text = _INLINE_CODE.sub(" ", text)
    display = _DISPLAY_MATH.findall(text)
    text = _DISPLAY_MATH.sub(" ", text)
    inline = _INLINE_MATH.findall(text)
    text = _INLINE_MATH.sub(" ", text)
    spans = [frozenset(_SPACES.sub(" ", span) for span in found) for found in (inline, code)]  # a span may wrap
    return Facts(Counter(display), *spans, frozenset(NUMBER.findall(text)))


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
