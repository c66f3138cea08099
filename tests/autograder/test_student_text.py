"""Student text made harmless where it enters: nothing that steers a terminal, a table or XML (formats: test_escape)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from autograder.student_text import clean_name, clean_text

ESCAPES = "\x1b[2K\rok\x1b]8;;http://evil\x07x\x00\x0b\x7f\x9b\u202eevil"


def test_messages_lose_escapes_carriage_returns_and_direction_overrides_but_keep_lines():
    assert clean_text(ESCAPES + "\n\tnext") == "[2Kok]8;;http://evilxevil\n\tnext"


def test_names_are_one_line_with_what_was_taken_shown_as_escapes():
    assert clean_name("\x1b[31mred\nx\u202e") == "\\x1b[31mred\\x0ax\\u202e"
    assert clean_name("ada") == "ada"


def test_lone_surrogates_become_replacement_characters():
    assert clean_text("a\ud800b") == "a\ufffdb"
    assert clean_name("a\udcffb") == "a\ufffdb"


@given(st.text())
def test_cleaned_text_holds_only_printable_characters_tabs_and_newlines(text):
    cleaned = clean_text(text)
    cleaned.encode("utf-8")
    assert all(c in "\t\n" or (ord(c) >= 0x20 and not 0x7F <= ord(c) <= 0x9F) for c in cleaned)

