"""A worker's failure as a catalog message: rebuilt only when sound, else the text it sent (both untrusted)."""

import pytest

from autograder.i18n import Message, render
from autograder.sandbox.client import _student_text
from autograder.sandbox.reported import MAX_DEPTH, reported_message
from autograder.sandbox.worker import Failure, _failure_header, english, said

MISSING = said("the module does not define {name}()", name="softmax")


def _header(message) -> dict:
    return _failure_header(Failure("missing_function", message))


def test_the_worker_sends_its_english_and_the_catalog_message_behind_it():
    header = _header(MISSING)
    assert header["message"] == "the module does not define softmax()" and header["said"] == MISSING
    assert "said" not in _header("Traceback (most recent call last):\n  ...")  # a traceback is the student's text


def test_a_sound_report_becomes_a_message_in_any_language():
    message = reported_message(_header(MISSING), _student_text)
    assert isinstance(message, Message) and message == "the module does not define softmax()"
    assert render(message, "zh") != message and "softmax()" in render(message, "zh")


def test_nested_reports_are_rebuilt_too():
    what = said("element {index} of {what}", index="1", what=said("the returned tuple"))
    header = _failure_header(Failure("bad_return", said("{what} is a dict, not an array", what=what)))
    message = reported_message(header, _student_text)
    assert isinstance(message, Message) and message == english(header["said"])


@pytest.mark.parametrize("forged", [
    {"msgid": "you scored {n}", "facts": {"n": "100"}},  # another text than the message sent
    {"msgid": "{0.__class__}", "facts": {}},  # attribute access in a placeholder
    {"msgid": "{name}", "facts": {}},  # a placeholder without its fact
    {"msgid": "x" * 400, "facts": {}},  # too long to be one of ours
    {"msgid": 5, "facts": {}},
    {"msgid": "{a}", "facts": "not a mapping"},
])
def test_a_forged_report_shows_only_the_text_sent(forged):
    header = {"message": "the module does not define softmax()", "said": forged}
    message = reported_message(header, _student_text)
    assert not isinstance(message, Message) and message == "the module does not define softmax()"


def test_nesting_is_bounded_and_facts_are_cleaned():
    deep = "x"
    for _ in range(MAX_DEPTH + 1):
        deep = {"msgid": "{inner}", "facts": {"inner": deep}}
    assert not isinstance(reported_message({"message": "x", "said": deep}, _student_text), Message)
    steered = {"message": "the module does not define \x1b[2Jsoftmax()", "said": said("the module does not define {name}()",
                                                                                    name="\x1b[2Jsoftmax")}
    message = reported_message(steered, _student_text)
    assert isinstance(message, Message) and "\x1b" not in message and "\x1b" not in render(message, "zh")
