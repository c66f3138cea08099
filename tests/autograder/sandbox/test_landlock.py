"""Landlock, applied by a throwaway process to itself: what it allows, and nothing else."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from autograder.sandbox import landlock

pytestmark = pytest.mark.skipif(landlock.landlock_abi() < 1, reason="this kernel has no Landlock")

PROBE = """
import json, sys
from autograder.sandbox import landlock
rules, paths = json.loads(sys.argv[1]), json.loads(sys.argv[2])
landlock.restrict_filesystem(rules)
seen = {}
for path in paths:
    try:
        open(path, "rb").close()
        seen[path] = True
    except OSError:
        seen[path] = False
print(json.dumps(seen))
"""


def _probe(rules: dict, paths: list[str]) -> dict[str, bool]:
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(rules), json.dumps(paths)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_only_what_the_rules_name_can_be_read_and_only_the_write_folder_written(tmp_path):
    allowed, forbidden, private = tmp_path / "allowed", tmp_path / "forbidden", tmp_path / "private"
    for folder in (allowed, forbidden, private):
        folder.mkdir()
        (folder / "file.txt").write_text("x")
    python_files = [p for p in sys.path if p.startswith(sys.base_prefix) or "site-packages" in p]
    rules = {"read": [*python_files, str(allowed)], "write": [str(private)], "devices": []}
    seen = _probe(rules, [str(allowed / "file.txt"), str(forbidden / "file.txt"), str(private / "file.txt"), "/etc/hostname"])
    assert seen == {str(allowed / "file.txt"): True, str(forbidden / "file.txt"): False,
                    str(private / "file.txt"): True, "/etc/hostname": False}
