"""Top-level statements of a submission that raised while it was imported, and were skipped.

The worker executes a module one top-level statement at a time (see
:func:`autograder.sandbox.worker.Submission.load`): an import of a module the sandbox lacks,
or plotting code at top level, costs only that statement. Its load reply lists them; this
module reads that list, which comes from the sandbox and is therefore checked, bounded and
cleaned like any other student text.
"""

from __future__ import annotations

from dataclasses import dataclass

from autograder.student_text import clean_name, clean_text

#: Most skipped statements kept from one reply (the worker sends at most this many).
MAX_SKIPPED = 20
#: Longest message kept per skipped statement.
MAX_MESSAGE_CHARS = 200
#: Longest exception type name or module name kept.
MAX_NAME_CHARS = 80


@dataclass(frozen=True)
class SkippedStatement:
    """A top-level statement that raised at import and was skipped.

    Attributes
    ----------
    line : int
        Its first line in the submitted module.
    error : str
        The exception's type, e.g. ``ModuleNotFoundError``.
    message : str
        The exception's message.
    module : str or None
        The top-level module that could not be imported, for a ``ModuleNotFoundError``.
    follows : bool
        It failed only because an earlier skipped statement did not bind a name it uses
        (``plt.show()`` after a failed ``import matplotlib.pyplot as plt``).
    """

    line: int
    error: str
    message: str
    module: str | None = None
    follows: bool = False


def _statement(entry) -> SkippedStatement | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("line"), int) or isinstance(entry.get("line"), bool):
        return None
    module = entry.get("module")
    return SkippedStatement(
        line=entry["line"],
        error=clean_name(str(entry.get("error", "")))[:MAX_NAME_CHARS],
        message=clean_text(str(entry.get("message", ""))).replace("\n", " ")[:MAX_MESSAGE_CHARS],
        module=clean_name(module)[:MAX_NAME_CHARS] if isinstance(module, str) and module else None,
        follows=entry.get("follows") is True,
    )


def parse_skipped(header: dict) -> tuple[tuple[SkippedStatement, ...], int]:
    """The skipped statements a load reply lists, and how many more were not listed.

    Malformed entries are dropped: the reply comes from inside the sandbox.
    """
    entries = header.get("skipped")
    listed = [s for s in map(_statement, entries[:MAX_SKIPPED] if isinstance(entries, list) else []) if s is not None]
    more = header.get("skipped_more")
    more = more if isinstance(more, int) and not isinstance(more, bool) and more > 0 else 0
    return tuple(listed), more
