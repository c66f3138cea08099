"""A sentence for the student that can say itself in every language of the catalog.

A :class:`Message` *is* its English text (a ``str``: the instructor's record, the logs and
every comparison read it as it always was) and also keeps what made it: the catalog's
message id (the English template, ``"{name} has shape {got}; expected {expected}"``) and
the facts filled into its ``{placeholders}``. :func:`render` says it again in another
language from the catalog, with the *same* facts: numbers, shapes and ids are formatted once,
in the code, and never by a translation.

Facts are text (already formatted numbers and shapes, names, student text), numbers
(formatted by the template's own format spec, which a translation must keep), or other
messages (rendered in the same language). Text facts are cleaned of display-steering
characters at every rendering (:func:`autograder.student_text.clean_text`); in HTML the
template's text and each fact are escaped separately, so a fact can never become markup.

Code marks its catalog entries where it writes them: :func:`msg` and :func:`msg_n` build a
message, :func:`N_` marks a template kept in a table for later. The suite extracts every
marked literal and requires its translation (:mod:`autograder.i18n.extract`).
"""

from __future__ import annotations

import string
from typing import Callable, Union

from autograder.student_text import clean_text

#: What a placeholder can be filled with.
Fact = Union[str, int, float, "Message"]
#: The argument of a plural message that picks its form.
COUNT = "n"
_FORMATTER = string.Formatter()


def N_(template: str) -> str:
    """Mark ``template`` as a catalog entry kept for later (a table of hints, say); returns it unchanged."""
    return template


def fields(template: str) -> list[tuple[str, str]]:
    """The ``(name, format spec)`` of every placeholder of ``template``, in order.

    >>> fields("{name} differs in {n} of {total:,} entries")
    [('name', ''), ('n', ''), ('total', ',')]
    """
    return [(name, spec) for _, name, spec, _ in _FORMATTER.parse(template) if name is not None]


def _fill(template: str, facts: dict, say: Callable[["Message"], str], escape: Callable[[str], str]) -> str:
    """``template`` with its placeholders filled: nested messages through ``say``, text cleaned, all escaped."""
    pieces = []
    for literal, name, spec, _ in _FORMATTER.parse(template):
        pieces.append(escape(literal))
        if name is None:
            continue
        value = facts[name]
        if isinstance(value, Message):
            pieces.append(say(value))
        elif isinstance(value, str):
            pieces.append(escape(clean_text(value)))
        else:
            pieces.append(escape(format(value, spec)))
    return "".join(pieces)


def _plain(text: str) -> str:
    return text


class Message(str):
    """An English sentence for the student (the ``str`` value) that keeps its catalog id and facts.

    Attributes
    ----------
    msgid : str
        The catalog's id: the English template (the singular one of a plural message).
    plural : str or None
        The English plural template of a plural message (gettext's ``msgid_plural``).
    facts : dict
        The values of the placeholders (str, int, float or Message).
    """

    msgid: str
    plural: str | None
    facts: dict

    def __new__(cls, msgid: str, facts: dict | None = None, plural: str | None = None) -> "Message":
        facts = dict(facts or {})
        template = msgid if plural is None or facts.get(COUNT) == 1 else plural
        english = _fill(template, facts, str, _plain)
        message = super().__new__(cls, english)
        message.msgid, message.plural, message.facts = msgid, plural, facts
        return message

    def __reduce__(self):
        return type(self), (self.msgid, self.facts, self.plural)

    def __repr__(self) -> str:
        return f"Message({self.msgid!r}, {self.facts!r})"


def msg(template: str, **facts: Fact) -> Message:
    """The catalog entry ``template`` with its placeholders filled by ``facts``.

    Raises
    ------
    KeyError
        When a placeholder has no fact (a bug of the code writing the message).
    """
    return Message(template, facts)


def msg_n(singular: str, plural: str, n: int, **facts: Fact) -> Message:
    """A message whose form depends on the count ``n`` (``{n}`` in the templates): gettext's ``ngettext``."""
    return Message(singular, {COUNT: int(n), **facts}, plural)


def entry(text: str) -> Message | str:
    """A catalog entry without placeholders (a test's description): a Message when ``text`` can be one.

    Text holding braces (a description the student wrote in their own copy of the public
    checks, say) stays plain text, shown as it is.
    """
    try:
        return Message(text) if not fields(text) else text
    except (ValueError, IndexError):
        return text


def joined(parts: list, separator: str = "; ") -> Message:
    """Several facts (messages or text) as one message, in order, between ``separator``.

    Its template holds only placeholders and the separator, so every language shows the
    parts as they are said in it.
    """
    names = [f"part{index}" for index in range(len(parts))]
    return Message(separator.join("{" + name + "}" for name in names), dict(zip(names, parts)))


def render(text: str, language: str, escape: Callable[[str], str] = _plain) -> str:
    """``text`` in ``language``: a :class:`Message` from the catalog, any other text as it is (cleaned).

    Parameters
    ----------
    text : str
        A Message, or text that is not one (student text, a name): shown as it is.
    language : str
        A language code of :data:`autograder.languages.KNOWN_LANGUAGES`.
    escape : callable, optional
        Applied to the template's text and to every fact separately (``html.escape`` for HTML).
    """
    if not isinstance(text, Message):
        return escape(clean_text(text))
    from autograder.i18n.catalog import translations

    catalog = translations(language)
    if text.plural is None:
        template = catalog.gettext(text.msgid)
    else:
        template = catalog.ngettext(text.msgid, text.plural, text.facts[COUNT])
    return _fill(template, text.facts, lambda nested: render(nested, language, escape), escape)


def to_wire(value: Fact) -> Fact | dict:
    """A message as plain JSON data (``{"msgid", "facts"[, "plural"]}``); any other value as it is."""
    if not isinstance(value, Message):
        return value if isinstance(value, (int, float)) else str(value)
    data: dict = {"msgid": value.msgid, "facts": {name: to_wire(fact) for name, fact in value.facts.items()}}
    if value.plural is not None:
        data["plural"] = value.plural
    return data


def from_wire(data) -> Fact:
    """The message (or plain value) :func:`to_wire` wrote.

    Raises
    ------
    KeyError, TypeError
        When ``data`` is a mapping that is not a written message.
    """
    if not isinstance(data, dict):
        return data
    facts = {str(name): from_wire(fact) for name, fact in data["facts"].items()}
    return Message(str(data["msgid"]), facts, data.get("plural"))
