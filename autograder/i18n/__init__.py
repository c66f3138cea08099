"""Feedback in every language of the course: one gettext catalog, messages that keep their facts.

- :mod:`.message`: :class:`Message` (English text that remembers its catalog id and facts),
  the markers :func:`msg`, :func:`msg_n`, :func:`N_`, and :func:`render` in a language.
- :mod:`.catalog`: the ``<language>.po`` files beside this module, read with :mod:`gettext`.
- :mod:`.extract` and :mod:`.maintain`: the ids the code uses, and the translator's
  ``python -m autograder.i18n update`` / ``check``.
"""

from autograder.i18n.message import Message, N_, entry, from_wire, joined, msg, msg_n, render, to_wire

__all__ = ["Message", "N_", "entry", "from_wire", "joined", "msg", "msg_n", "render", "to_wire"]
