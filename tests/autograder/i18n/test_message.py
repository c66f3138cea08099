"""Messages: English as they always were, the catalog's language on demand, facts never translated or trusted."""

import html
import pickle

import pytest

from autograder.i18n import Message, entry, from_wire, joined, msg, msg_n, render, to_wire
from autograder.i18n.catalog import read_po, po_path

ZH = {e.msgid: e for e in read_po(po_path("zh"))}
SHAPE = "{name} has shape {got}; expected {expected}"


def test_a_message_is_its_english_text():
    message = msg(SHAPE, name="A", got="(2, 3)", expected="(2, 4)")
    assert message == "A has shape (2, 3); expected (2, 4)"
    assert isinstance(message, str) and message.msgid == SHAPE and message.facts["got"] == "(2, 3)"


def test_render_says_it_in_chinese_from_the_catalog_with_the_same_facts():
    message = msg(SHAPE, name="A", got="(2, 3)", expected="(2, 4)")
    chinese = render(message, "zh")
    assert chinese == ZH[SHAPE].msgstr[0].format(name="A", got="(2, 3)", expected="(2, 4)")
    assert chinese != message and render(message, "en") == message


def test_nested_messages_are_said_in_the_same_language():
    inner = msg("the result")
    outer = msg("{name} is not an array", name=inner)
    assert outer == "the result is not an array"
    assert render(outer, "zh") == ZH["{name} is not an array"].msgstr[0].format(name=ZH["the result"].msgstr[0])


def test_plural_forms_follow_each_language():
    one, three = msg_n("{n} test", "{n} tests", 1), msg_n("{n} test", "{n} tests", 3)
    assert (one, three) == ("1 test", "3 tests")
    assert render(three, "zh") == ZH["{n} test"].msgstr[0].format(n=3)


def test_html_escapes_each_fact_and_the_template_apart():
    message = msg("{file} does not exist", file='<script>alert("x")</script>')
    page = render(message, "zh", html.escape)
    assert "<script>" not in page and html.escape('<script>alert("x")</script>') in page
    template = ZH["{file} does not exist"].msgstr[0]
    assert page == template.format(file=html.escape('<script>alert("x")</script>'))


def test_student_text_in_a_fact_is_cleaned_at_every_rendering():
    message = msg("{file} does not exist", file="evil\x1b[2J\u202ename.py")
    for language in ("en", "zh"):
        assert "\x1b" not in render(message, language) and "\u202e" not in render(message, language)


def test_text_that_is_not_a_message_is_shown_as_it_is_cleaned():
    assert render("plain \x1b[31mtext", "zh") == "plain [31mtext"


def test_numbers_keep_their_format_spec_in_every_language():
    message = Message("{what} did not finish within {seconds:g} s", {"what": "f()", "seconds": 5.0})
    assert message == "f() did not finish within 5 s"
    assert "5" in render(message, "zh")


def test_a_missing_fact_is_a_bug_of_the_code_writing_the_message():
    with pytest.raises(KeyError):
        msg(SHAPE, name="A")


def test_wire_and_pickle_keep_the_id_and_the_facts():
    message = msg("{what}: {problem}", what="attention", problem=msg_n("{n} test", "{n} tests", 2))
    for copy in (from_wire(to_wire(message)), pickle.loads(pickle.dumps(message))):
        assert copy == message and copy.msgid == message.msgid
        assert render(copy, "zh") == render(message, "zh")


def test_an_entry_with_braces_stays_plain_text():
    assert isinstance(entry("softmax of the worked example"), Message)
    assert not isinstance(entry("a {brace} the student wrote"), Message)
    assert entry("a {brace} the student wrote") == "a {brace} the student wrote"


def test_joined_parts_are_each_said_in_the_language():
    parts = joined([msg("the result"), "x.py"], ", ")
    assert parts == "the result, x.py"
    assert render(parts, "zh") == ZH["the result"].msgstr[0] + ", x.py"
