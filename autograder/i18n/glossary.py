"""The course glossary, and whether a Chinese text uses its terms.

``solutions/glossary.yml`` lists the concepts of the course with their English term, the
Chinese term every translation uses, and where the source chapter uses it. The rule a
translation follows, precisely:

*An English text mentions a concept* when, in its prose, the concept's English term or
one of its ``en_also`` forms occurs as a whole word sequence: case-insensitive, a hyphen
or any run of white space between words matching any other (``dot-product`` is ``dot
product``), with the plural of the last word (``keys``, ``queries``, ``context vectors``)
counting too. Occurrences inside an ``en_not`` phrase (``absolute value`` for *value*) do
not count. Prose is the text without math (``$...$``, ``$$...$$``, ``:math:`...```,
``.. math::`` blocks), code (fences, ```...```, ````...````, roles such as
``:func:`...```) and HTML tags or comments, and without emphasis marks (``*``): a symbol or
a function name is no mention.

*A Chinese text uses a concept's term* when its prose holds the Chinese term (or one of the
``zh_also`` forms) outside the ``zh_not`` compounds (``数值`` does not use ``值``).

The check: the Chinese text of every pair uses the term of every concept its English text
mentions, and never holds one of a concept's ``zh_avoid`` renderings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

_REMOVED = [
    re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE),  # code fences
    re.compile(r"^(\s*)\.\. math::.*?(?=^\1\S|\Z)", re.DOTALL | re.MULTILINE),  # rst math blocks
    re.compile(r"^\s*>>>.*$", re.MULTILINE),  # doctest lines
    re.compile(r"\$\$.+?\$\$", re.DOTALL),  # display math
    re.compile(r"\$[^$]+\$"),  # inline math
    re.compile(r":[a-z]+:`[^`]+`"),  # rst roles
    re.compile(r"``[^`]+``|`[^`]+`"),  # inline code
    re.compile(r"<!--.*?-->|<[^>]+>", re.DOTALL),  # HTML
]
_SEPARATOR = re.compile(r"[\s\-‐‑–]+")
_REQUIRED_KEYS = ("en", "zh", "where")
_LIST_KEYS = ("en_also", "en_not", "zh_also", "zh_not", "zh_avoid")


class GlossaryError(ValueError):
    """The glossary file is malformed."""


@dataclass(frozen=True)
class Term:
    """One concept of the glossary (see the module docstring for the meaning of each list)."""

    en: str
    zh: str
    where: str
    en_also: tuple[str, ...] = ()
    en_not: tuple[str, ...] = ()
    zh_also: tuple[str, ...] = ()
    zh_not: tuple[str, ...] = ()
    zh_avoid: tuple[str, ...] = ()


def _term(entry: object, number: int, origin: str) -> Term:
    if not isinstance(entry, dict):
        raise GlossaryError(f"{origin}: entry {number} is not a mapping")
    unknown = sorted(set(entry) - set(_REQUIRED_KEYS) - set(_LIST_KEYS))
    missing = [key for key in _REQUIRED_KEYS if not isinstance(entry.get(key), str) or not entry[key].strip()]
    if unknown or missing:
        raise GlossaryError(f"{origin}: entry {number} ({entry.get('en')!r}): unknown keys {unknown}, missing {missing}")
    lists = {key: entry.get(key, []) for key in _LIST_KEYS}
    if not all(isinstance(v, list) and all(isinstance(x, str) and x for x in v) for v in lists.values()):
        raise GlossaryError(f"{origin}: entry {number} ({entry['en']!r}): {', '.join(_LIST_KEYS)} are lists of words")
    return Term(entry["en"], entry["zh"], entry["where"], **{key: tuple(value) for key, value in lists.items()})


def parse_glossary(text: str, origin: str = "glossary.yml") -> list[Term]:
    """The terms of a glossary text (a ``terms:`` list).

    Raises
    ------
    GlossaryError
        When an entry lacks a key, has an unknown one, or repeats an English term.
    """
    data = yaml.safe_load(text)
    entries = data.get("terms") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise GlossaryError(f"{origin}: expected a non-empty list under `terms:`")
    terms = [_term(entry, number, origin) for number, entry in enumerate(entries, start=1)]
    english = [t.en.lower() for t in terms]
    repeated = sorted({e for e in english if english.count(e) > 1})
    if repeated:
        raise GlossaryError(f"{origin}: English terms listed twice: {repeated}")
    return terms


def load_glossary(path: Path) -> list[Term]:
    """The terms of the glossary file at ``path``."""
    return parse_glossary(path.read_text(encoding="utf-8"), str(path))


def prose(text: str) -> str:
    """``text`` without its math, code and HTML (see the module docstring)."""
    for pattern in _REMOVED:
        text = pattern.sub(" ", text)
    return text.replace("*", "")  # emphasis: *global* attention, *可微分的*检索


def _normalised(english: str) -> str:
    return _SEPARATOR.sub(" ", english.lower()).strip()


def _plurals(form: str) -> list[str]:
    if form.endswith("y") and form[-2:-1] not in tuple("aeiou"):
        return [form, form[:-1] + "ies"]
    return [form, form + "s", form + "es"]


def _english_pattern(term: Term) -> re.Pattern:
    forms = sorted({plural for form in (term.en, *term.en_also) for plural in _plurals(_normalised(form))}, key=len, reverse=True)
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(re.escape(f) for f in forms) + r")(?![a-z0-9])")


def mentions(term: Term, english: str) -> bool:
    """Whether the prose of ``english`` mentions the concept."""
    text = _normalised(prose(english))
    for phrase in term.en_not:
        text = text.replace(_normalised(phrase), " ")
    return _english_pattern(term).search(text) is not None


def uses(term: Term, chinese: str) -> bool:
    """Whether the prose of ``chinese`` holds the concept's Chinese term outside the ``zh_not`` compounds."""
    text = prose(chinese).lower()
    for compound in term.zh_not:
        text = text.replace(compound.lower(), " ")
    return any(form.lower() in text for form in (term.zh, *term.zh_also))


def glossary_problems(terms: list[Term], english: str, chinese: str) -> list[str]:
    """Terms the Chinese text should use and does not, and renderings it should avoid."""
    problems = [f"mentions {t.en!r} but does not use {t.zh}" for t in terms if mentions(t, english) and not uses(t, chinese)]
    chinese_prose = prose(chinese)
    problems += [
        f"uses {avoided!r}; the glossary's term for {t.en!r} is {t.zh}"
        for t in terms for avoided in t.zh_avoid if avoided in chinese_prose
    ]
    return problems
