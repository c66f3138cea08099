"""Parsing a submission's source: a syntax error or an unreadable file as a message for the student."""

from __future__ import annotations

import ast

from autograder.errors import LoadFailed
from autograder.i18n import msg
from autograder.student_text import clean_text
from autograder.submission.locate import could_not_read


def parse_source(source: str, filename: str) -> ast.Module:
    """Parse the submission.

    Raises
    ------
    LoadFailed
        With the line, offset and message of a syntax error; or "could not be read" when
        the parser itself gives up (too deep, too big, not Unicode, NUL bytes).
    """
    try:
        return ast.parse(source, filename=filename)
    except SyntaxError as error:
        if error.lineno is None:  # not a place in the code (NUL bytes, say): the file itself is unreadable
            raise could_not_read(filename, error) from None
        where = msg("line {line}, column {column}", line=str(error.lineno), column=str(error.offset)) if error.offset \
            else msg("line {line}", line=str(error.lineno))
        text = f"\n    {clean_text(error.text).rstrip()}" if error.text else ""
        raise LoadFailed(msg("{file} does not parse: {error} ({where}){code}", file=filename, error=clean_text(error.msg),
                             where=where, code=text)) from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise could_not_read(filename, error) from None
