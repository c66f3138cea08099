"""Keep a catalog in step with the code, and say what a translator still has to do.

:func:`updated_entries` is ``msgmerge``: the ids the code uses now (:mod:`.extract`), each
with the translation the catalog already has, new ids untranslated, ids the code no longer
uses dropped. :func:`catalog_problems` is the check a translator runs after editing: every
id has a translation, none is fuzzy or stale, each keeps its placeholders (names and format
specs, so numbers and shapes come out the same in every language), and the Chinese follows
the course glossary (:mod:`autograder.i18n.glossary`).
"""

from __future__ import annotations

import re
from pathlib import Path

from autograder.i18n.glossary import Term, glossary_problems, load_glossary
from autograder.i18n.catalog import PoEntry, po_path, read_po
from autograder.i18n.extract import extract
from autograder.i18n.message import fields
from autograder.languages import TRANSLATED_LANGUAGES
from autograder.paths import PROJECT_ROOT

#: The course glossary the Chinese catalog follows.
GLOSSARY = PROJECT_ROOT / "solutions" / "glossary.yml"
#: gettext's plural rule of each translated language (Chinese has one form).
PLURAL_FORMS = {"zh": "nplurals=1; plural=0;"}
#: Placeholders and code, removed before the glossary compares the prose: ``{weight}`` is a name, and an
#: identifier (``split_heads``, ``key_padding_mask``, ``Q.shape[-1]``, ``np.sqrt(d_k)``) is code that a
#: translation keeps as it is, not a mention of a concept.
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
#: A number as templates write it: digits, a decimal part, an exponent (identifiers' digits, as in ``d_k2``, excluded).
_NUMBER = re.compile(r"(?<![A-Za-z_0-9.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![A-Za-z_0-9])")
_CODE = re.compile(r"[A-Za-z0-9_.]*(?:_[A-Za-z0-9]|[A-Za-z0-9]\.[A-Za-z])[A-Za-z0-9_.]*(?:\[[^\]]*\])?(?:\([^()]*\))?")
#: Longest line of a written .po string before it is split (as msgmerge does).
LINE_WIDTH = 76


def header(language: str) -> PoEntry:
    """The header entry of a catalog (UTF-8, the language's plural rule)."""
    text = (f"Project-Id-Version: attn-course\nLanguage: {language}\nMIME-Version: 1.0\n"
            "Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n"
            f"Plural-Forms: {PLURAL_FORMS.get(language, 'nplurals=2; plural=(n != 1);')}\n")
    return PoEntry("", [text], comments=[f"attn-course feedback messages: {language}. "
                                         "Run `python -m autograder.i18n check` after editing."])


def _quoted(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("\n", "\\n")
    return f'"{escaped}"'


def _string(keyword: str, text: str) -> list[str]:
    """A keyword and its string, split after newlines and spaces when long."""
    if len(text) + len(keyword) + 3 <= LINE_WIDTH and "\n" not in text[:-1]:
        return [f"{keyword} {_quoted(text)}"]
    pieces = re.findall(r".*?(?:\n|\s|$)", text) if text else []
    lines, line = [f'{keyword} ""'], ""
    for piece in (p for p in pieces if p):
        if line and (len(line) + len(piece) > LINE_WIDTH or line.endswith("\n")):
            lines.append(_quoted(line))
            line = ""
        line += piece
    return lines + ([_quoted(line)] if line else [])


def format_entry(entry: PoEntry) -> str:
    """One entry as .po text."""
    lines = [f"# {c}" if c else "#" for c in entry.comments]
    lines += [f"#: {reference}" for reference in entry.references]
    lines += [f"#, {', '.join(entry.flags)}"] if entry.flags else []
    lines += _string("msgid", entry.msgid)
    if entry.msgid_plural is None:
        lines += _string("msgstr", entry.msgstr[0] if entry.msgstr else "")
    else:
        lines += _string("msgid_plural", entry.msgid_plural)
        lines += [line for index, form in enumerate(entry.msgstr or [""]) for line in _string(f"msgstr[{index}]", form)]
    return "\n".join(lines)


def format_po(entries: list[PoEntry]) -> str:
    """A whole .po file: the entries separated by blank lines."""
    return "\n\n".join(format_entry(e) for e in entries) + "\n"


def _flags(msgid: str, plural: str | None) -> list[str]:
    return ["python-brace-format"] if fields(msgid) or (plural and fields(plural)) else []


def updated_entries(language: str, existing: list[PoEntry], extracted: dict) -> list[PoEntry]:
    """The catalog's entries for the ids the code uses now, in the code's order, translations kept."""
    known = {(e.msgid, e.msgid_plural): e for e in existing if e.msgid}
    head = next((e for e in existing if not e.msgid), header(language))
    entries = [head]
    for (msgid, plural), references in extracted.items():
        old = known.get((msgid, plural))
        forms = old.msgstr if old else [""]
        comments = old.comments if old else []
        keep_fuzzy = ["fuzzy"] if old and "fuzzy" in old.flags else []
        entries.append(PoEntry(msgid, forms, plural, comments, sorted(set(references)), _flags(msgid, plural) + keep_fuzzy))
    return entries


def kit_entries(entries: list[PoEntry], used: dict) -> list[PoEntry]:
    """The header and the entries whose ids are in ``used`` (the ids some modules use), without references."""
    return [PoEntry(e.msgid, e.msgstr, e.msgid_plural, e.comments, [], e.flags)
            for e in entries if not e.msgid or (e.msgid, e.msgid_plural) in used]


def _numbers(text: str) -> list[str]:
    """The numbers of a template outside its placeholders, sorted (``0.4519``, ``1e4``, ``3``)."""
    return sorted(_NUMBER.findall(_PLACEHOLDER.sub(" ", text)))


def _placeholder_problems(entry: PoEntry) -> list[str]:
    """A translation keeps every placeholder (name and format spec) and every number of the English."""
    wanted = sorted(set(fields(entry.msgid)) | set(fields(entry.msgid_plural or "")))
    problems = [f"{entry.msgid!r}: the translation {form!r} has placeholders {sorted(set(fields(form)))}, the English {wanted}"
                for form in entry.msgstr if form and sorted(set(fields(form))) != wanted]
    return problems + [f"{entry.msgid!r}: the translation {form!r} has the numbers {_numbers(form)}, the English "
                       f"{_numbers(entry.msgid)}" for form in entry.msgstr if form and _numbers(form) != _numbers(entry.msgid)]


def _glossary_problems(terms: list[Term], entry: PoEntry) -> list[str]:
    english = _CODE.sub(" ", _PLACEHOLDER.sub(" ", " ".join(filter(None, (entry.msgid, entry.msgid_plural)))))
    chinese = _CODE.sub(" ", _PLACEHOLDER.sub(" ", " ".join(entry.msgstr)))
    return [f"{entry.msgid!r}: {problem}" for problem in glossary_problems(terms, english, chinese)]


def catalog_problems(language: str, entries: list[PoEntry], extracted: dict, terms: list[Term] | None = None) -> list[str]:
    """What keeps the catalog of ``language`` from being complete and right (empty when it is).

    Parameters
    ----------
    entries : list of PoEntry
        The catalog as read.
    extracted : dict
        The ids the code uses (:func:`autograder.i18n.extract.extract`).
    terms : list of Term, optional
        The glossary a Chinese catalog follows.
    """
    known = {(e.msgid, e.msgid_plural): e for e in entries if e.msgid}
    head = next((e.msgstr[0] for e in entries if not e.msgid), "")
    problems = [] if "charset=UTF-8" in head else [f"{language}.po: the header must say Content-Type: text/plain; charset=UTF-8"]
    problems += [f"missing from {language}.po: {msgid!r}" for msgid, _ in extracted if (msgid, _) not in known]
    problems += [f"stale in {language}.po (the code no longer uses it): {key[0]!r}" for key in known if key not in extracted]
    for key, entry in known.items():
        if key not in extracted:
            continue
        if not entry.translated:
            problems.append(f"untranslated{' (fuzzy)' if 'fuzzy' in entry.flags else ''} in {language}.po: {entry.msgid!r}")
            continue
        problems += _placeholder_problems(entry)
        problems += _glossary_problems(terms or [], entry)
    return problems


def check_language(language: str, folder: Path | None = None) -> list[str]:
    """Every problem of the catalog of ``language`` against the code (the translator's check)."""
    extracted, problems = extract()
    path = po_path(language, folder) if folder else po_path(language)
    terms = load_glossary(GLOSSARY) if language == "zh" and GLOSSARY.is_file() else []
    return problems + catalog_problems(language, read_po(path), extracted, terms)


def catalog_is_current(language: str) -> bool:
    """Whether the catalog of ``language`` is what :func:`update_language` would write now (ids and references)."""
    extracted, _ = extract()
    path = po_path(language)
    existing = read_po(path) if path.is_file() else []
    return path.is_file() and path.read_text(encoding="utf-8") == format_po(updated_entries(language, existing, extracted))


def update_catalogs(languages) -> list[tuple[Path, int]]:
    """Bring the catalog of each translated language of ``languages`` in step with the code: the one way every command
    writes them (``python -m autograder.i18n update``, ``attn-course build``, ``attn-course new``), so that each writes
    the same bytes. The source language has no catalog and is skipped.

    Returns
    -------
    list of (Path, int)
        Each catalog written, and how many of its ids are untranslated.
    """
    return [update_language(language) for language in languages if language in TRANSLATED_LANGUAGES]


def update_language(language: str, folder: Path | None = None) -> tuple[Path, int]:
    """Rewrite the catalog of ``language`` for the ids the code uses now; returns it and how many ids are untranslated."""
    extracted, _ = extract()
    path = po_path(language, folder) if folder else po_path(language)
    existing = read_po(path) if path.is_file() else []
    entries = updated_entries(language, existing, extracted)
    path.write_text(format_po(entries), encoding="utf-8")
    return path, sum(not e.translated for e in entries if e.msgid)
