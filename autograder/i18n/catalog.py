"""The message catalog: one gettext ``.po`` file per translated language, read with Python's gettext.

``autograder/i18n/<language>.po`` holds, for every message id (the English template), its
translation; a translator edits it like any other ``.po`` file (Poedit, an editor) without
reading the code. The file is read as it is: :func:`compile_mo` turns its entries into the
binary ``.mo`` form in memory and :class:`gettext.GNUTranslations` reads that, so there is no
generated file to keep in step. English is the language of the ids and needs no file.

Only what gettext's ``.po`` format needs here is parsed: comments (``#.``, ``#:``, ``#,``),
``msgctxt``-free entries with ``msgid``, ``msgid_plural``, ``msgstr`` and ``msgstr[N]``,
strings split over several lines, and the C escapes ``\\n``, ``\\t``, ``\\"`` and ``\\\\``.
"""

from __future__ import annotations

import ast
import functools
import gettext
import io
import struct
from dataclasses import dataclass, field
from pathlib import Path

from autograder.errors import GraderError
from autograder.languages import SOURCE_LANGUAGE

#: Where the catalogs live: ``<language>.po`` beside this module.
CATALOG_DIR = Path(__file__).resolve().parent
#: gettext's magic number and the size of a .mo header (7 little-endian 32-bit words).
MO_MAGIC = 0x950412DE
MO_HEADER_BYTES = 7 * 4
#: The keywords of an entry, and the one that continues the previous string.
_KEYWORDS = ("msgid_plural", "msgid", "msgstr")


class CatalogError(GraderError, ValueError):
    """A ``.po`` file that is missing or cannot be read (the message names the file and the line)."""


@dataclass
class PoEntry:
    """One entry of a ``.po`` file.

    Attributes
    ----------
    msgid : str
        The English template ("" for the header).
    msgstr : list of str
        The translation; one string per plural form for a plural entry, "" while untranslated.
    msgid_plural : str or None
        The English plural template of a plural entry.
    comments : list of str
        Lines after ``#.`` (notes for the translator) and ``#`` (the translator's own).
    references : list of str
        Where the code uses it (``#:`` lines).
    flags : list of str
        ``#,`` flags, e.g. ``python-brace-format`` or ``fuzzy``.
    """

    msgid: str
    msgstr: list[str] = field(default_factory=lambda: [""])
    msgid_plural: str | None = None
    comments: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)

    @property
    def translated(self) -> bool:
        """Every form has a translation and it is not marked fuzzy (a guess waiting for review)."""
        return all(self.msgstr) and bool(self.msgstr) and "fuzzy" not in self.flags


def po_path(language: str, folder: Path = CATALOG_DIR) -> Path:
    """The catalog file of ``language``."""
    return folder / f"{language}.po"


def _unquote(token: str, origin: str, number: int) -> str:
    token = token.strip()
    if len(token) < 2 or token[0] != '"' or token[-1] != '"':
        raise CatalogError(f"{origin}:{number}: expected a quoted string, got {token!r}")
    try:
        return ast.literal_eval(token)
    except (ValueError, SyntaxError):
        raise CatalogError(f"{origin}:{number}: malformed string {token!r}") from None


def _comment(entry: PoEntry, line: str) -> None:
    kind, _, rest = line.partition(" ")
    if kind == "#:":
        entry.references += rest.split()
    elif kind == "#,":
        entry.flags += [flag.strip() for flag in rest.split(",") if flag.strip()]
    elif not line.startswith("#~"):
        entry.comments.append(rest if kind in ("#", "#.") else line[1:])


def _keyword(line: str) -> tuple[str, int | None, str]:
    """(keyword, plural index or None, the rest of the line) of a ``msgid``/``msgstr[N]`` line."""
    head, _, rest = line.partition(" ")
    if head.startswith("msgstr[") and head.endswith("]"):
        return "msgstr", int(head[len("msgstr["):-1]), rest
    return head, None, rest


def _store(entry: PoEntry, keyword: str, index: int | None, text: str) -> None:
    if keyword == "msgid":
        entry.msgid += text
    elif keyword == "msgid_plural":
        entry.msgid_plural = (entry.msgid_plural or "") + text
    else:
        slot = index or 0
        entry.msgstr += [""] * (slot + 1 - len(entry.msgstr))
        entry.msgstr[slot] += text


def parse_po(text: str, origin: str = "<po>") -> list[PoEntry]:
    """The entries of a ``.po`` file, the header (msgid "") first when there is one.

    Raises
    ------
    CatalogError
        On a line that is not a comment, a keyword line or a continued string.
    """
    entries: list[PoEntry] = []
    pending: list[str] = []  # comment lines of the entry to come
    current: tuple[PoEntry, str, int | None] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#~"):
            continue
        if line.startswith("#"):
            pending.append(line)
            continue
        if line.startswith('"'):
            if current is None:
                raise CatalogError(f"{origin}:{number}: a string outside an entry")
            _store(current[0], current[1], current[2], _unquote(line, origin, number))
            continue
        keyword, index, rest = _keyword(line)
        if keyword not in _KEYWORDS:
            raise CatalogError(f"{origin}:{number}: unknown keyword {keyword!r}")
        if keyword == "msgid":
            entry = PoEntry("", [])
            for comment in pending:
                _comment(entry, comment)
            pending = []
            entries.append(entry)
            current = (entry, keyword, index)
        elif current is None:
            raise CatalogError(f"{origin}:{number}: {keyword} before any msgid")
        current = (current[0], keyword, index)
        _store(current[0], keyword, index, _unquote(rest, origin, number))
    for entry in entries:
        entry.msgstr = entry.msgstr or [""]
    return entries


def read_po(path: Path) -> list[PoEntry]:
    """The entries of the ``.po`` file at ``path``."""
    return parse_po(path.read_text(encoding="utf-8"), str(path))


def compile_mo(entries: list[PoEntry]) -> bytes:
    """The entries as a gettext ``.mo`` file (what ``msgfmt`` writes); untranslated and fuzzy ones are left out."""
    kept = sorted(((_key(e), "\0".join(e.msgstr)) for e in entries if e.translated or not e.msgid),
                  key=lambda pair: pair[0].encode("utf-8"))
    ids = [key.encode("utf-8") for key, _ in kept]
    strs = [value.encode("utf-8") for _, value in kept]
    ids_table, strs_table = MO_HEADER_BYTES, MO_HEADER_BYTES + 8 * len(kept)
    offset = strs_table + 8 * len(kept)
    index, data = [], b""
    for blob in (*ids, *strs):
        index.append((len(blob), offset + len(data)))
        data += blob + b"\0"
    header = struct.pack("<7I", MO_MAGIC, 0, len(kept), ids_table, strs_table, 0, 0)
    return header + b"".join(struct.pack("<2I", *pair) for pair in index) + data


def _key(entry: PoEntry) -> str:
    return entry.msgid if entry.msgid_plural is None else f"{entry.msgid}\0{entry.msgid_plural}"


@functools.lru_cache(maxsize=None)
def translations(language: str, folder: Path = CATALOG_DIR) -> gettext.NullTranslations:
    """The gettext translations of ``language`` (English: the ids themselves).

    Raises
    ------
    CatalogError
        When the language has no catalog file, or it cannot be read.
    """
    if language == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    path = po_path(language, folder)
    if not path.is_file():
        raise CatalogError(f"no message catalog for {language!r} ({path})")
    return gettext.GNUTranslations(io.BytesIO(compile_mo(read_po(path))))
