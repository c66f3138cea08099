"""``attn-course build`` and ``python -m autograder.i18n update`` write the message catalog the same way.

In two copies of the project, the same author's edits (new entries: a new hidden test, a new hint among the course's
mistakes, a catalog entry gone; or references only: a known hint used in one more file): one copy is rebuilt, the
other's catalog updated; the two catalogs are the same bytes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.config import load_course
from autograder.i18n.catalog import po_path, read_po
from autograder.i18n.maintain import format_po
from autograder.languages import TRANSLATED_LANGUAGES
from tests.autograder.scaffold.test_course_edits import _copy_project

COURSE = load_course()
TIMEOUT_S = 600
NEW_TEST = "A planted check the catalog does not know yet."
NEW_HINT = "Your function plants a hint the catalog does not know yet."


def _edit(root: Path) -> str:
    """The author's edits in the copy at ``root``; the msgid of the catalog entry removed."""
    assignment = COURSE.assignments[0]
    function = assignment.functions[0]
    suite = root / "hidden_tests" / assignment.id / f"test_{function}.py"
    suite.write_text(suite.read_text(encoding="utf-8") + f'\n\n@question\ndef test_planted(submission, tol):\n'
                     f'    """{NEW_TEST}"""\n', encoding="utf-8")
    (root / "mistakes" / "planted.py").write_text(
        "from autograder.diagnose.registry import Bug\nfrom autograder.i18n import N_\n\n"
        f'BUGS = (Bug("{function}.planted", N_("{NEW_HINT}")),)\n', encoding="utf-8")
    catalog = root / po_path(TRANSLATED_LANGUAGES[0]).relative_to(Path(__file__).resolve().parents[3])
    entries = read_po(catalog)
    removed = next(e for e in entries[1:] if e.msgid)
    catalog.write_text(format_po([e for e in entries if e is not removed]), encoding="utf-8")
    return removed.msgid


def _reuse(root: Path) -> str:
    """A module of the course's mistakes that uses a hint the catalog knows: only its references change."""
    from autograder.diagnose.registry import bugs

    known = bugs()[-1]
    (root / "mistakes" / "planted.py").write_text(
        "from autograder.diagnose.registry import Bug\nfrom autograder.i18n import N_\n\n"
        f'BUGS = (Bug("planted.{known.id.split(".")[1]}", N_({known.hint!r})),)\n', encoding="utf-8")
    return known.hint


def _run(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
                          capture_output=True, text=True, timeout=TIMEOUT_S, check=False)


def _same_catalog(tmp_path: Path, edit) -> tuple[dict, object]:
    """Each copy's catalog after the edit, built in one and updated in the other: the built one's entries."""
    built, updated = tmp_path / "built", tmp_path / "updated"
    _copy_project(built)
    edited = edit(built)
    shutil.copytree(built, updated)
    language = TRANSLATED_LANGUAGES[0]
    catalog = po_path(language).relative_to(Path(__file__).resolve().parents[3])
    done = _run(built, "-m", "autograder.cli", "-q", "build")
    assert done.returncode == 0, done.stdout + done.stderr
    done = _run(updated, "-m", "autograder.i18n", "update", language)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (built / catalog).read_text(encoding="utf-8") == (updated / catalog).read_text(encoding="utf-8")
    return {e.msgid: e for e in read_po(built / catalog)}, edited


@pytest.mark.slow
def test_build_and_update_write_the_same_catalog_with_new_entries(tmp_path):
    entries, removed = _same_catalog(tmp_path, _edit)
    assert not any(entries[msgid].translated for msgid in (NEW_TEST, NEW_HINT))
    assert removed in entries and entries[NEW_HINT].references == ["mistakes/planted.py"]


@pytest.mark.slow
def test_build_and_update_write_the_same_catalog_when_only_references_change(tmp_path):
    entries, hint = _same_catalog(tmp_path, _reuse)
    assert "mistakes/planted.py" in entries[hint].references and entries[hint].translated
