"""Is every text of an assignment translated, and does every translation keep the facts?

The build refuses an assignment whose sources lack a translation the course ships, or
whose translation departs from the English text (see :mod:`autograder.build.prose` and
:func:`autograder.build.docstrings.docstring_problems`). Whether a translation follows the
glossary is a test of the course's content, not a build rule (see
:mod:`autograder.i18n.glossary`).
"""

from __future__ import annotations

from autograder.build.docstrings import (
    DOCSTRINGS_SOURCE,
    TranslatedDocstrings,
    docstring_problems,
    function_docstring,
    module_docstring,
)
from autograder.build.markers import MarkerError, function_source
from autograder.build.notebook import filled_functions, read_source
from autograder.build.prose import parallel_problems
from autograder.build.translation import pairing_problems, prose_pairs
from autograder.languages import SOURCE_LANGUAGE
from autograder.paths import NOTEBOOK_SOURCE


def notebook_problems(notebook_source: str, language: str, origin: str) -> list[str]:
    """Missing or misplaced ``language`` cells, and cells whose translation departs from the English."""
    notebook = read_source(notebook_source)
    where = f"{origin}/{NOTEBOOK_SOURCE}"
    problems = pairing_problems(notebook, (language,), where)
    for pair in prose_pairs(notebook, language):
        problems += [f"{where}: cell {pair.position}, {language}: {p}" for p in parallel_problems(pair.english, pair.translation)]
    return problems


def docstrings_problems(
    notebook_source: str, master_module: str, translated: TranslatedDocstrings, language: str, origin: str
) -> list[str]:
    """Untranslated or unknown docstrings, and translations that depart from the English."""
    where = f"{origin}/{DOCSTRINGS_SOURCE.format(language=language)}"
    filled = filled_functions(notebook_source)
    problems = [f"{where}: no translated docstring for {name}" for name in filled if name not in translated.functions]
    problems += [f"{where}: {name} is no graded or given function of the notebook" for name in translated.functions if name not in filled]
    if not translated.module:
        problems.append(f"{where}: no translated module docstring (`module:`)")
    else:
        problems += [f"{where}: module: {p}" for p in docstring_problems(module_docstring(master_module), translated.module)]
    for name in filled:
        if name in translated.functions:
            try:
                english = function_docstring(function_source(master_module, name))
            except MarkerError:
                continue  # reported by the build as a graded cell without its function
            problems += [f"{where}: {name}: {p}" for p in docstring_problems(english, translated.functions[name])]
    return problems


def translation_problems(
    notebook_source: str, master_module: str, docstrings: dict[str, TranslatedDocstrings],
    languages: tuple[str, ...], origin: str,
) -> list[str]:
    """Every translation problem of one assignment, for every translated language the course ships.

    Parameters
    ----------
    notebook_source, master_module : str
        ``solutions/<id>/notebook.py`` and the master module.
    docstrings : dict
        Language -> the assignment's translated docstrings.
    languages : tuple of str
        The course's ``languages``.
    origin : str
        ``solutions/<id>``, for messages.
    """
    problems = []
    for language in languages:
        if language == SOURCE_LANGUAGE:
            continue
        problems += notebook_problems(notebook_source, language, origin)
        translated = docstrings.get(language, TranslatedDocstrings())
        problems += docstrings_problems(notebook_source, master_module, translated, language, origin)
    return problems
