"""Student-controlled text, made harmless where it enters the grader.

Exception messages, printed output, file and folder names come from the student. Before
they reach a terminal, ``feedback.txt``, a rich table, a CSV file or JUnit XML, they lose
every character that could steer what displays them: C0 and C1 control characters (terminal
escape sequences, carriage returns that rewrite a line, NUL), Unicode direction overrides
(which reorder what is shown), and code points XML cannot hold. Tabs and newlines stay in
messages; names are one line, and what is taken from them is shown as an escape (``\\x1b``)
so that two different names never become the same one.

Each output then escapes what is special to it (Markdown, HTML, XML, CSV formulas, JSON):
:mod:`autograder.escape`, one function per format.
"""

from __future__ import annotations

import re

#: What display steering looks like: C0 controls but tab and newline, DEL, C1 controls,
#: direction marks, embeddings, overrides and isolates, and the two non-characters XML refuses.
_STEERING = "\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufffe\uffff"
_STEERING_CHARACTER = re.compile(f"[{_STEERING}]")
_STEERING_OR_LINE_BREAK = re.compile(f"[{_STEERING}\t\n]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _without_surrogates(text: str) -> str:
    """``text`` with lone surrogates (which no encoder accepts) replaced by U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def clean_text(text: object) -> str:
    """A student message (traceback, output) without any display-steering character; lines are kept."""
    return _STEERING_CHARACTER.sub("", _without_surrogates(str(text)))


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean_name(text: object) -> str:
    """A student-chosen name (file, folder, student id) as one safe line: what is removed shows as ``\\x1b``."""
    return _STEERING_OR_LINE_BREAK.sub(_escape, _without_surrogates(str(text)))

