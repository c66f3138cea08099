"""The languages a course can be shipped in, and how a release names its files per language.

English is the source language: every text of the course is written in English first and
translated from it. A release names the files of its *first* language (the first of
``languages`` in course.yml) plainly, ``scaled_attention.ipynb`` and ``README.md``, and the
files of every other language with the language code before the extension,
``scaled_attention.zh.ipynb`` and ``README.zh.md``.
"""

from __future__ import annotations

from pathlib import PurePosixPath

#: The language every master is written in; translations are made from it.
SOURCE_LANGUAGE = "en"
#: Known language codes and their names, in a stable order.
KNOWN_LANGUAGES = {"en": "English", "zh": "中文 (简体)"}
#: The languages texts are translated into.
TRANSLATED_LANGUAGES = tuple(code for code in KNOWN_LANGUAGES if code != SOURCE_LANGUAGE)


def localized_file_name(name: str, language: str, first_language: str) -> str:
    """The release file name of ``name`` in ``language``.

    Parameters
    ----------
    name : str
        The plain file name, e.g. ``scaled_attention.ipynb``.
    language : str
        The language of the file.
    first_language : str
        The release's first language, whose files keep the plain name.

    Examples
    --------
    >>> localized_file_name("scaled_attention.ipynb", "zh", "en")
    'scaled_attention.zh.ipynb'
    >>> localized_file_name("README.md", "zh", "zh")
    'README.md'
    """
    if language == first_language:
        return name
    path = PurePosixPath(name)
    return str(path.with_name(f"{path.stem}.{language}{path.suffix}"))


def language_of_file_name(name: str) -> str | None:
    """The language code a file name carries before its extension, if any (``README.zh.md`` -> ``zh``)."""
    suffixes = PurePosixPath(name).suffixes
    code = suffixes[-2][1:] if len(suffixes) >= 2 else None
    return code if code in KNOWN_LANGUAGES else None


def file_names_in_every_language(name: str) -> tuple[str, ...]:
    """``name`` and its name in every known language, whichever language a release puts first.

    >>> file_names_in_every_language("scaled_attention.ipynb")
    ('scaled_attention.ipynb', 'scaled_attention.en.ipynb', 'scaled_attention.zh.ipynb')
    """
    return (name, *(localized_file_name(name, code, first_language="") for code in KNOWN_LANGUAGES))
