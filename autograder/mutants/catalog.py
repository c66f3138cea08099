"""The catalog of known-wrong versions ("mutants") of the graded functions.

When a submission's result is wrong, the grader runs every mutant of that function on the
same inputs; a mutant whose output matches the student's names the likely bug. Bugs are
named by the ids of :mod:`autograder.diagnose.registry`, which also holds their hints. A
bug that shows up in several ways is listed once per way: those sub-variants share the
``id`` (what the bug is) and differ in ``variant`` (how it shows). The behavioural probes
of :mod:`autograder.diagnose.probes` name bugs without a mutant; the catalog keeps the
wrong versions the hidden tests must be able to catch (the test-power gate).

The mutants are course content: each module of the course's ``mistakes/`` folder lists its own in ``MUTANTS``
(read by :mod:`autograder.mistakes`); the engine keeps the :class:`Mutant` type, the lookups and the mistakes
any function can have (:func:`generic_mutants`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

import attn_reference

from autograder import mistakes
from autograder.diagnose.registry import bug
from autograder.i18n import Message


@dataclass(frozen=True)
class Mutant:
    """One known-wrong version of a graded function.

    Attributes
    ----------
    id : str
        Id of the bug in :mod:`autograder.diagnose.registry`, e.g. ``"softmax.no_max_shift"``;
        shared by sub-variants.
    function : str
        The graded function it is a wrong version of, e.g. ``"softmax"``.
    implementation : Callable
        Same signature and return structure as the ``attn_reference`` function.
    variant : str
        Which sub-variant of the bug this is; empty when the bug has only one.
    facts : tuple of (str, str or Message)
        Values for the placeholders of the bug's hint (names and sizes as text, phrases as catalog messages).
    """

    id: str
    function: str
    implementation: Callable
    variant: str = ""
    facts: tuple[tuple[str, str | Message], ...] = ()

    @property
    def hint(self) -> Message:
        """The registry's hint for this bug, its placeholders filled with this variant's facts."""
        return bug(self.id).say(function=self.function, **dict(self.facts))


#: The mistake every graded function has from the start, before its author lists its own.
RETURNS_ZEROS = "call.returns_zeros"


def _zeros_like(result):
    return tuple(np.zeros_like(part) for part in result) if isinstance(result, tuple) else np.zeros_like(result)


@functools.lru_cache(maxsize=None)
def generic_mutants(function: str) -> tuple[Mutant, ...]:
    """The mistakes any graded function can have, which its hidden tests must catch from the first day (none for a
    name the reference lacks): zeros whatever the input."""
    reference = getattr(attn_reference, function, None)
    if not callable(reference):
        return ()

    def returns_zeros(*args, **kwargs):
        return _zeros_like(reference(*args, **kwargs))

    return (Mutant(RETURNS_ZEROS, function, returns_zeros),)


def all_mutants(folder: Path | None = None) -> tuple[Mutant, ...]:
    """Every mutant of the course (``MUTANTS`` of its mistakes, module by module; ``folder`` is a mistakes folder,
    default :func:`autograder.mistakes.active_folder`).

    Raises
    ------
    ConfigError
        When a module of the course's mistakes cannot be loaded (the message names its file).
    """
    return mistakes.collected("MUTANTS", folder)


def own_mutants(function: str, folder: Path | None = None) -> tuple[Mutant, ...]:
    """The course's own mutants of ``function`` (sub-variants included), in catalog order."""
    return tuple(m for m in all_mutants(folder) if m.function == function)


def mutants_for(function: str) -> tuple[Mutant, ...]:
    """Every mutant (sub-variants included) of the graded ``function`` that names a bug when replayed.

    The generic mistakes are not among them: a result of zeros also matches the right answer of some
    degenerate inputs, so they only test the hidden suite (the test-power gate), never name a bug.
    An unknown name gives an empty tuple.
    """
    return own_mutants(function)


def mutant(mutant_id: str) -> Mutant:
    """The mutant with this id; for a bug with sub-variants, the first one listed.

    Raises
    ------
    KeyError
        When no mutant has this id.
    """
    for candidate in all_mutants():
        if candidate.id == mutant_id:
            return candidate
    raise KeyError(f"no mutant with id {mutant_id!r}")
