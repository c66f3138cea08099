"""The .po reader and the in-memory .mo that Python's gettext reads."""

import gettext
import io

import pytest

from autograder.i18n.catalog import CatalogError, compile_mo, parse_po, translations

SAMPLE = r'''# header comment
msgid ""
msgstr ""
"Language: zh\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=1; plural=0;\n"

#. a note for the translator
#: autograder/x.py:3
#, python-brace-format
msgid "{file} does not "
"exist"
msgstr "{file} 不存在"

msgid "{n} test"
msgid_plural "{n} tests"
msgstr[0] "{n} 个测试"

#, fuzzy
msgid "a guess"
msgstr "猜测"

msgid "quote \" and\ttab\n"
msgstr "引号 \" 和\t制表符\n"

msgid "untranslated"
msgstr ""
'''


def test_entries_comments_flags_and_continued_strings():
    entries = parse_po(SAMPLE)
    assert [e.msgid for e in entries][:3] == ["", "{file} does not exist", "{n} test"]
    first = entries[1]
    assert first.msgstr == ["{file} 不存在"] and first.references == ["autograder/x.py:3"]
    assert first.flags == ["python-brace-format"] and first.comments == ["a note for the translator"]
    assert entries[2].msgid_plural == "{n} tests" and entries[2].msgstr == ["{n} 个测试"]
    assert entries[4].msgid == 'quote " and\ttab\n' and entries[4].msgstr == ['引号 " 和\t制表符\n']


def test_gettext_reads_the_compiled_catalog_without_fuzzy_or_untranslated_entries():
    catalog = gettext.GNUTranslations(io.BytesIO(compile_mo(parse_po(SAMPLE))))
    assert catalog.gettext("{file} does not exist") == "{file} 不存在"
    assert catalog.ngettext("{n} test", "{n} tests", 5) == "{n} 个测试"
    assert catalog.gettext("a guess") == "a guess"  # fuzzy: not used until reviewed
    assert catalog.gettext("untranslated") == "untranslated"
    assert catalog.gettext('quote " and\ttab\n') == '引号 " 和\t制表符\n'


@pytest.mark.parametrize("broken", ['msgid "a"\nmsgstr "b', 'msgid "a"\nnonsense "b"', '"orphan string"', 'msgstr "no id"'])
def test_a_malformed_file_names_its_line(broken):
    with pytest.raises(CatalogError, match=r"<po>:\d+: "):
        parse_po(broken)


def test_english_needs_no_file_and_an_unknown_language_is_an_error(tmp_path):
    assert translations("en").gettext("anything") == "anything"
    with pytest.raises(CatalogError, match="no message catalog for 'fr'"):
        translations("fr", tmp_path)
