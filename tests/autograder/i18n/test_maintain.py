"""The catalog is complete, right and follows the glossary; each check fails on a catalog broken on purpose."""

import copy
import subprocess
import sys

import pytest

from autograder.i18n.glossary import load_glossary
from autograder.i18n.catalog import PoEntry, parse_po, po_path, read_po
from autograder.i18n.extract import extract
from autograder.i18n.maintain import GLOSSARY, catalog_problems, check_language, format_po, updated_entries
from autograder.paths import PROJECT_ROOT

EXTRACTED, _ = extract()
TERMS = load_glossary(GLOSSARY)
ENTRIES = read_po(po_path("zh"))


def _problems(entries):
    return catalog_problems("zh", entries, EXTRACTED, TERMS)


def _broken(msgid: str, **changes) -> list[PoEntry]:
    entries = copy.deepcopy(ENTRIES)
    for entry in entries:
        if entry.msgid == msgid:
            for name, value in changes.items():
                setattr(entry, name, value)
    return entries


def test_every_message_the_code_uses_has_a_checked_chinese_translation():
    assert _problems(ENTRIES) == []
    assert len(EXTRACTED) > 400 and all(key in {(e.msgid, e.msgid_plural) for e in ENTRIES} for key in EXTRACTED)


def test_a_message_without_chinese_fails():
    assert _problems(_broken("{file} does not exist", msgstr=[""])) == ["untranslated in zh.po: '{file} does not exist'"]
    fuzzy = _broken("{file} does not exist", flags=["fuzzy"])
    assert _problems(fuzzy) == ["untranslated (fuzzy) in zh.po: '{file} does not exist'"]


def test_a_message_missing_from_the_catalog_and_a_stale_one_fail():
    entries = [e for e in ENTRIES if e.msgid != "{file} does not exist"] + [PoEntry("no longer used", ["不再使用"])]
    assert _problems(entries) == ["missing from zh.po: '{file} does not exist'",
                                  "stale in zh.po (the code no longer uses it): 'no longer used'"]


def test_a_translation_that_loses_a_placeholder_or_a_number_fails():
    lost = _problems(_broken("{file} does not exist", msgstr=["文件不存在"]))
    assert len(lost) == 1 and "has placeholders []" in lost[0]
    number = "softmax([0.5, 0, 0]) gives 0.4519 and 0.2741."
    changed = _problems(_broken(number, msgstr=["softmax([0.5, 0, 0]) 得到 0.452 和 0.2741。"]))
    assert len(changed) == 1 and "has the numbers" in changed[0]


def test_a_translation_off_the_glossary_fails():
    mask = "Your causal mask is a Python list; return a numpy boolean array."
    avoided = _problems(_broken(mask, msgstr=["你的因果遮罩是 Python 列表；请返回 numpy 布尔数组。"]))
    assert avoided and all("掩码" in p or "遮罩" in p for p in avoided)


def test_update_keeps_translations_adds_new_ids_and_drops_unused_ones():
    extracted = {**{key: refs for key, refs in list(EXTRACTED.items())[:3]}, ("a new message", None): ["x.py:1"]}
    updated = updated_entries("zh", ENTRIES, extracted)
    assert [e.msgid for e in updated] == ["", *(k[0] for k in extracted)]
    assert updated[1].msgstr == next(e.msgstr for e in ENTRIES if e.msgid == updated[1].msgid)
    assert updated[-1].msgstr == [""] and updated[-1].references == ["x.py:1"]


def test_the_written_catalog_reads_back_the_same():
    again = parse_po(format_po(ENTRIES))
    assert [(e.msgid, e.msgid_plural, e.msgstr, e.flags) for e in again] == \
        [(e.msgid, e.msgid_plural, e.msgstr, e.flags) for e in ENTRIES]


def test_the_committed_catalog_is_in_the_form_update_writes():
    assert po_path("zh").read_text(encoding="utf-8") == format_po(updated_entries("zh", ENTRIES, EXTRACTED))


def test_the_translators_check_command(tmp_path):
    done = subprocess.run([sys.executable, "-m", "autograder.i18n", "check"], cwd=PROJECT_ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    broken = tmp_path / "zh.po"
    broken.write_text(format_po(_broken("{file} does not exist", msgstr=[""])), encoding="utf-8")
    assert check_language("zh", tmp_path) == ["untranslated in zh.po: '{file} does not exist'"]


@pytest.mark.parametrize("language", ["fr"])
def test_the_command_refuses_a_language_without_catalog(language):
    done = subprocess.run([sys.executable, "-m", "autograder.i18n", "check", language], cwd=PROJECT_ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 2 and "no catalog for fr" in done.stderr
