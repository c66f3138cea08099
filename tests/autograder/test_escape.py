"""One escaping function per output format: hostile text comes out as text, ordinary text reads as it was written.

Each function's output is read back with a real parser of its format (tests/autograder/hostile_text.py).
"""

from __future__ import annotations

import csv
import io
import json
from xml.etree import ElementTree

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograder.escape import csv_cell, html_text, json_document, markdown, markdown_code, terminal_text, xml_text
from tests.autograder.hostile_text import (
    AUTOLINK_TRIGGER,
    CORPUS,
    FORMULA_STARTS,
    HOSTILE,
    HOSTILE_ID,
    HOSTILE_NOTE,
    ORDINARY,
    Page,
    hidden_characters,
    rendered_markdown,
    visible,
)

TEXTS = (*CORPUS, HOSTILE, HOSTILE_NOTE, HOSTILE_ID, ORDINARY)
#: Names shown as code: backticks, pipes, spaces at either end, a line break.
NAMES = ("softmax", "a`b", "``x", "x``", "a|b", " x ", "two\nlines", "<b>x</b>")


def _cell_page(source: str) -> Page:
    return rendered_markdown(f"| a | b |\n| --- | --- |\n| {source} | end |\n")


@pytest.mark.parametrize("text", TEXTS)
def test_markdown_in_a_table_cell_is_the_text_and_nothing_else(text):
    page = _cell_page(markdown(text))
    assert page.cells == ["a", "b", visible(text).rstrip(" \t"), "end"]
    assert page.tags() <= {"table", "thead", "tbody", "tr", "th", "td", "br"}
    assert all(not attrs for _, attrs in page.elements)


@pytest.mark.parametrize("text", TEXTS)
def test_markdown_starting_a_line_is_one_paragraph_of_the_text(text):
    page = rendered_markdown(markdown(text) + "\n")
    assert page.tags() <= {"p", "br"} and [tag for tag, _ in page.elements].count("p") == 1
    assert page.text.removesuffix("\n") == visible(text).rstrip()


@pytest.mark.parametrize("text", TEXTS)
def test_markdown_leaves_no_autolink_for_github_to_find(text):
    assert AUTOLINK_TRIGGER.search(markdown(text)) is None


@given(st.text(st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp"))))
def test_any_text_in_a_table_cell_shows_as_itself(text):
    assert _cell_page(markdown(text)).cells[2].strip(" \t") == visible(text).strip(" \t")


@pytest.mark.parametrize("name", NAMES)
def test_markdown_code_is_one_code_span_of_the_name(name):
    page = _cell_page(markdown_code(name))
    assert [tag for tag, _ in page.elements if tag not in ("table", "thead", "tbody", "tr", "th", "td")] == ["code"]
    assert page.cells[2] == name.replace("\n", " ")


def test_markdown_of_ordinary_text_keeps_it_readable():
    assert _cell_page(markdown(ORDINARY)).cells[2] == ORDINARY
    assert markdown("softmax returned 3 values") == "softmax returned 3 values"
    assert markdown_code("") == ""


@pytest.mark.parametrize("text", TEXTS)
def test_html_text_is_text_and_attribute_value(text):
    page = Page(f'<p title="{html_text(text)}">{html_text(text)}</p>')
    assert page.elements == [("p", {"title": visible(text)})]
    assert page.text == visible(text)


@pytest.mark.parametrize("text", TEXTS)
def test_xml_text_serialises_to_well_formed_xml_that_reads_back(text):
    element = ElementTree.Element("failure", message=xml_text(text))
    element.text = xml_text(text)
    parsed = ElementTree.fromstring(ElementTree.tostring(element, encoding="unicode"))
    assert (parsed.get("message"), parsed.text) == (visible(text), visible(text))


def test_csv_cells_are_one_line_and_never_a_formula():
    buffer = io.StringIO(newline="")
    csv.writer(buffer).writerows([[csv_cell(text), 1.5] for text in TEXTS])
    rows = list(csv.reader(io.StringIO(buffer.getvalue(), newline="")))
    assert len(rows) == len(TEXTS) and all(len(row) == 2 for row in rows)
    cells = [row[0] for row in rows]
    assert not [cell for cell in cells if cell.startswith(FORMULA_STARTS) or "\n" in cell or hidden_characters(cell)]
    assert cells[TEXTS.index(ORDINARY)] == ORDINARY


def test_formula_cells_become_text_and_numbers_stay_numbers():
    assert [csv_cell(v) for v in ("=SUM(A1)", "+1", "-1", "@cmd", "ada", 3.0, None)] == \
        ["'=SUM(A1)", "'+1", "'-1", "'@cmd", "ada", 3.0, None]
    assert csv_cell("\t=1") == "\\x09=1" and csv_cell("王小明") == "王小明"


def test_json_documents_are_ascii_and_read_back_as_the_visible_text():
    document = json_document({text: [text, {"n": text, "x": 1.5, "ok": True, "none": None}] for text in TEXTS})
    assert document.isascii() and document.endswith("}\n")
    data = json.loads(document)
    assert data == {visible(text): [visible(text), {"n": visible(text), "x": 1.5, "ok": True, "none": None}]
                    for text in TEXTS}


@pytest.mark.parametrize("text", TEXTS)
def test_terminal_text_steers_no_terminal(text):
    assert hidden_characters(terminal_text(text)) == []
    assert terminal_text(text) == visible(text)
