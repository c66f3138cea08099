"""Feedback folder names: safe on every file system, readable, and one folder per student by construction."""

from __future__ import annotations

import hashlib
import random
import re
import unicodedata

import pytest

from autograder.gradebook.folders import feedback_folders, safe_name

#: What a folder name may hold: letters and digits of any script, ``_ . - ~``.
SAFE = re.compile(r"^[\w.~-]+$")
#: Windows' device names (whatever follows their first dot), as Microsoft's "Naming Files" lists them.
WINDOWS_DEVICES = {"CON", "PRN", "AUX", "NUL", *(f"COM{n}" for n in range(10)), *(f"LPT{n}" for n in range(10))}
#: What file systems take a name to be at most, in bytes.
NAME_MAX_BYTES = 255

#: Names an attacker (or an accident) might choose; ``a/b`` cannot be a file name, ``a%2Fb`` can.
ADVERSARIAL = [
    "ada", "Ada", "ADA", "ada lovelace", "ada_lovelace", "ada  lovelace", " ada", "ada ", "ada.", "ada_",
    ".", "..", "...", ".hidden", "a..b", "", "student", "~", "ada~1", "ada~2",
    "王小明", "Émile", "émile", unicodedata.normalize("NFD", "Émile"), "zoë", "Straße", "STRASSE",
    "a\u202eb", "a\u200db", "a\x00b", "a\nb", "a\\b", "a:b", "a%2Fb", "a/b", "../../etc", "/abs/path",
    "CON", "con", "con.txt", "Con.tar.gz", "COM1", "lpt9.py", "nul", "AUX.", "COM¹",
    "a" * 300, "a" * 300 + "b", "王" * 200, "王" * 200 + "x", "é" * 130,
]


def _attackers(victims: list[str]) -> list[str]:
    """For each victim, the id equal to the folder the victim gets when alone (the attack that once shared it)."""
    return [feedback_folders([victim])[victim] for victim in victims]


def _fs_keys(name: str) -> set[str]:
    """How case-insensitive or normalising file systems may see ``name`` (NTFS, APFS, HFS+)."""
    return {unicodedata.normalize(form, name).casefold() for form in ("NFC", "NFD")} | {name.upper(), name.lower()}


def test_a_class_of_adversarial_names_and_their_attackers_gets_one_safe_folder_per_student(tmp_path):
    students = ADVERSARIAL + _attackers(ADVERSARIAL)
    folders = feedback_folders(students)
    assert set(folders) == set(students)
    seen: dict[str, str] = {}
    for student, name in folders.items():
        assert SAFE.match(name) and not name.startswith((".", "~")) and not name.endswith((".", " ")), (student, name)
        assert name.split(".")[0].upper() not in WINDOWS_DEVICES | {"COM¹"}, (student, name)
        assert len(name.encode("utf-8")) <= NAME_MAX_BYTES, student
        for key in _fs_keys(name):
            assert seen.setdefault(key, student) == student, f"{student!r} and {seen[key]!r} share the folder {name!r}"
    for name in folders.values():
        (tmp_path / name).mkdir()  # each is a folder name this file system takes
    assert len(list(tmp_path.iterdir())) == len(set(students))


@pytest.mark.parametrize("attacker", [
    "ada_lovelace-" + hashlib.sha256(b"ada lovelace").hexdigest()[:8],  # the report's: the old folder of "ada lovelace"
    *_attackers(["ada lovelace"]),  # today's folder of "ada lovelace", as an id
])
def test_the_attacker_of_the_report_gets_a_folder_other_than_the_victim_s(attacker):
    victim = "ada lovelace"
    folders = feedback_folders([victim, attacker])
    assert len({folders[victim].casefold(), folders[attacker].casefold()}) == 2
    assert folders[victim] == feedback_folders([victim])[victim]  # the victim's folder does not move for the attacker


def test_the_mapping_does_not_depend_on_the_order_of_the_students():
    shuffled = list(ADVERSARIAL)
    random.Random(7).shuffle(shuffled)
    assert feedback_folders(shuffled) == feedback_folders(ADVERSARIAL)


@pytest.mark.parametrize("student", ["ada", "ada.lovelace-1_x", "王小明", "Émile", "zoë", "Ñúñez-2", "Алёна"])
def test_safe_ids_in_any_script_keep_their_names_when_nobody_collides(student):
    assert safe_name(student) == student
    assert feedback_folders([student, "ben"])[student] == student


def test_names_that_only_case_tells_apart_each_get_a_number_and_take_no_one_else_s_name():
    folders = feedback_folders(["Ada", "ada", "ada~1", "ben"])
    assert folders["ben"] == "ben"
    assert len({name.casefold() for name in folders.values()}) == 4
    assert folders["Ada"].startswith("Ada~") and folders["ada"].startswith("ada~")


def test_a_changed_name_keeps_what_it_can_and_never_is_another_id_s_unchanged_name():
    assert safe_name("a b/c").startswith("a_b_c~")
    assert safe_name("../../etc").startswith("etc~")
    assert safe_name("").startswith("student~") and safe_name("student") == "student"
    assert safe_name("CON").startswith("_CON~") and safe_name("con.txt").startswith("_con.txt~")
    assert "~" not in {c for student in ADVERSARIAL if safe_name(student) == student for c in student}


def test_long_names_cut_alike_still_get_folders_of_their_own():
    long = ["王" * 200, "王" * 200 + "x", "王" * 201]
    folders = feedback_folders(long)
    assert len(set(folders.values())) == 3
    assert all(len(name.encode("utf-8")) <= NAME_MAX_BYTES for name in folders.values())
