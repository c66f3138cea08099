"""What the code asks the catalog for: marked templates and hidden tests' descriptions."""

import ast

from autograder.i18n.extract import extract, marked_templates, test_descriptions

SOURCE = '''
from autograder.i18n import N_, msg, msg_n

HINT = N_("a hint about {thing}")

def f(x, template):
    raise LoadFailed(msg("{file} does not exist", file=x))

def g(n, template):
    return msg_n("{n} test", "{n} tests", n), msg(template)

def test_softmax(submission):
    """softmax of a row sums to 1.

    More text the students do not see.
    """
'''


def test_marked_literals_are_found_and_a_computed_template_is_a_problem():
    found, problems = marked_templates(ast.parse(SOURCE), "x.py")
    assert [(e.msgid, e.msgid_plural) for e in found] == [
        ("a hint about {thing}", None), ("{file} does not exist", None), ("{n} test", "{n} tests")]
    assert problems == ["x.py:10: msg() needs a literal template"]


def test_a_hidden_tests_description_is_its_docstrings_first_line():
    assert [e.msgid for e in test_descriptions(ast.parse(SOURCE), "x.py")] == ["softmax of a row sums to 1."]


def test_the_package_marks_every_template_literally_and_its_hidden_tests_have_descriptions():
    entries, problems = extract()
    assert problems == []
    assert ("softmax([0.5, 0, 0]) gives 0.4519 and 0.2741.", None) in entries  # a hidden test's description
    assert all("{" not in msgid for (msgid, _), refs in entries.items() if any("hidden_tests" in r for r in refs)
               and not any("msg" in r for r in refs) and msgid.endswith("."))
