"""Language codes and the release's file names per language."""

from __future__ import annotations

import typing

import pytest

from autograder.config import Language
from autograder.languages import (
    KNOWN_LANGUAGES,
    SOURCE_LANGUAGE,
    TRANSLATED_LANGUAGES,
    file_names_in_every_language,
    language_of_file_name,
    localized_file_name,
)


def test_course_yml_accepts_exactly_the_known_languages():
    assert set(typing.get_args(Language)) == set(KNOWN_LANGUAGES)
    assert SOURCE_LANGUAGE in KNOWN_LANGUAGES and SOURCE_LANGUAGE not in TRANSLATED_LANGUAGES
    assert TRANSLATED_LANGUAGES == ("zh",)


@pytest.mark.parametrize(
    "name, language, first, expected",
    [
        ("scaled_attention.ipynb", "en", "en", "scaled_attention.ipynb"),
        ("scaled_attention.ipynb", "zh", "en", "scaled_attention.zh.ipynb"),
        ("README.md", "zh", "zh", "README.md"),
        ("README.md", "en", "zh", "README.en.md"),
    ],
)
def test_the_first_language_keeps_the_plain_name_and_the_others_carry_their_code(name, language, first, expected):
    assert localized_file_name(name, language, first) == expected


@pytest.mark.parametrize(
    "name, language",
    [("README.zh.md", "zh"), ("a.en.ipynb", "en"), ("README.md", None), ("a.fr.ipynb", None), ("zh", None), ("x.zh", None)],
)
def test_the_language_of_a_file_name_is_a_known_code_before_the_extension(name, language):
    assert language_of_file_name(name) == language


def test_a_file_has_a_name_in_every_language_whichever_comes_first():
    assert file_names_in_every_language("a.ipynb") == ("a.ipynb", "a.en.ipynb", "a.zh.ipynb")
