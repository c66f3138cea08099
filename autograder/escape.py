"""Student text escaped for each output the grader writes: one function per format.

Exception messages and tracebacks, printed output, file and entry names, student ids,
notes about skipped statements, names taken from the submission and notebook cell text are
the student's. Every writer passes each of them (and, for simplicity, every other text it
writes) through the function of its format, and nothing else:

==========================  ========================  ======================================================
output                      function                  what it neutralises
==========================  ========================  ======================================================
Markdown (job summary)      :func:`markdown`,         raw HTML, links, images, autolinks, emphasis, headings,
                            :func:`markdown_code`     lists, tables' pipes, line breaks, entities, math
HTML (feedback, class)      :func:`html_text`         tags, attributes, entities
JUnit XML (ElementTree)     :func:`xml_text`          characters XML cannot hold (ElementTree escapes markup)
CSV (csv module)            :func:`csv_cell`          spreadsheet formulas, line breaks (the module quotes)
JSON                        :func:`json_document`     (json escapes) display steering in every string
terminal, ``feedback.txt``  :func:`terminal_text`     ANSI escape sequences, carriage returns, direction marks
==========================  ========================  ======================================================

Each first drops what steers a display (:func:`autograder.student_text.clean_text`), then
escapes what is special to its format, so that the text reads as the student wrote it and
never as markup. Rich prints student text as :class:`rich.text.Text`, which it never reads
as markup (``[red]``, ``[link=...]``).
"""

from __future__ import annotations

import html
import json
import re

from autograder.student_text import clean_name, clean_text

#: ASCII punctuation that Markdown (CommonMark, GFM, GitHub's math) never reads as syntax wherever it stands.
MARKDOWN_INERT = ",;/?%'\""
#: Every other ASCII punctuation character gets a backslash: CommonMark shows ``\x`` as ``x`` for each of them.
_MARKDOWN_SPECIAL = re.compile("([" + re.escape("".join(
    c for c in map(chr, range(0x21, 0x7F)) if not c.isalnum() and c not in MARKDOWN_INERT)) + "])")
#: A line break inside a table cell or a list item (the one HTML tag the grader writes into Markdown).
MARKDOWN_LINE_BREAK = "<br>"
_BACKTICKS = re.compile("`+")
#: Whitespace that would start an indented code block where the text begins a line.
_LEADING_BLANK = re.compile(r"^[ \t]")
#: Characters XML 1.0 cannot hold (cleaned text has none; this keeps the XML valid regardless).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
#: Characters that begin a spreadsheet formula (OWASP's list for CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: What neutralises a formula: a leading apostrophe makes the cell text.
FORMULA_GUARD = "'"


def markdown(text: object) -> str:
    """``text`` as inline GitHub Markdown that shows exactly that text, in a table cell or anywhere in a line.

    Every ASCII punctuation character that Markdown can read (``< > & [ ] ( ) ! * _ ` # - + . :
    @ | \\ ~ $ =`` ...) gets a backslash, which CommonMark removes when it shows the text: no
    tag, entity, link, image, autolink (``http\\://``, ``www\\.``, ``a\\@b``), emphasis,
    heading, list, code span, math or cell boundary can come out of it. Line breaks become
    ``<br>``, so the text never leaves its cell or its line; a leading space or tab becomes
    its character reference, so the text starts no indented code block.

    Parameters
    ----------
    text : object
        Student text (or any text): shown as it is, made a str.

    Returns
    -------
    str
        Markdown source that renders to ``text`` (without display-steering characters).
    """
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", clean_text(text))
    escaped = _LEADING_BLANK.sub(lambda blank: f"&#{ord(blank.group())};", escaped)
    return escaped.replace("\n", MARKDOWN_LINE_BREAK)


def markdown_code(text: object) -> str:
    """``text`` as a Markdown code span inside a table cell (a name shown as code): ``` `softmax` ```.

    The span's fence is longer than any run of backticks in the text; pipes keep their
    backslash (which GitHub's tables remove before the span is read); line breaks become spaces.

    Parameters
    ----------
    text : object
        A name (a function, an id); empty text gives an empty string.

    Returns
    -------
    str
        The code span, valid in a GFM table cell.
    """
    code = clean_text(text).replace("\n", " ").replace("|", "\\|")
    if not code:
        return ""
    fence = "`" * (1 + max((len(run) for run in _BACKTICKS.findall(code)), default=0))
    padded = f" {code} " if code[0] in "` " or code[-1] in "` " else code
    return f"{fence}{padded}{fence}"


def html_text(text: object) -> str:
    """``text`` as HTML text or attribute value: ``&``, ``<``, ``>`` and both quotes become entities.

    Parameters
    ----------
    text : object
        Student text (or any text), made a str.

    Returns
    -------
    str
        HTML that shows ``text`` (without display-steering characters).
    """
    return html.escape(clean_text(text), quote=True)


def xml_text(text: object) -> str:
    """``text`` as an ElementTree text or attribute value: only characters XML 1.0 can hold.

    ElementTree escapes ``&``, ``<``, ``>`` (so ``]]>`` too), quotes and, in attributes, line
    breaks; what it cannot escape (NUL, other C0 controls, lone surrogates) is dropped here.

    Parameters
    ----------
    text : object
        Student text (or any text), made a str.

    Returns
    -------
    str
        Text that serialises to well-formed XML.
    """
    return _NOT_XML.sub("", clean_text(text))


def csv_cell(value: object) -> object:
    """A CSV cell no spreadsheet runs as a formula and no reader splits: text starting ``= + - @`` gets a ``'``.

    Text becomes one line (:func:`~autograder.student_text.clean_name`: a removed character
    shows as ``\\x1b``); numbers and None stay as they are. The csv module quotes the rest.

    Parameters
    ----------
    value : object
        A cell: text (a student id, a list of names) or a number.

    Returns
    -------
    object
        The cell to hand to :mod:`csv`.
    """
    if not isinstance(value, str):
        return value
    cell = clean_name(value)
    return FORMULA_GUARD + cell if cell.startswith(FORMULA_STARTS) else cell


def json_data(data: object) -> object:
    """``data`` with every string in it (keys too) cleaned of display-steering characters.

    Parameters
    ----------
    data : object
        JSON data: dicts, lists, strings, numbers, booleans, None.

    Returns
    -------
    object
        The same data, every string through :func:`~autograder.student_text.clean_text`.
    """
    if isinstance(data, str):
        return clean_text(data)
    if isinstance(data, dict):
        return {clean_text(key): json_data(value) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return [json_data(value) for value in data]
    return data


def json_document(data: object, indent: int | None = 2) -> str:
    """``data`` as a JSON document (a final newline): strings cleaned, every non-ASCII character as ``\\uXXXX``.

    Parameters
    ----------
    data : object
        JSON data.
    indent : int or None, optional
        json's indent.

    Returns
    -------
    str
        The document, pure ASCII: nothing in it can steer a terminal that shows the file.
    """
    return json.dumps(json_data(data), indent=indent, ensure_ascii=True) + "\n"


def terminal_text(text: object) -> str:
    """``text`` for a terminal or a text file: no escape sequence, carriage return or direction mark; lines kept.

    Parameters
    ----------
    text : object
        Student text (or any text), made a str.

    Returns
    -------
    str
        The text without display-steering characters.
    """
    return clean_text(text)
