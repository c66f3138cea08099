"""Removing what a worker left: trees deeper than PATH_MAX, deeper than the recursion limit, locked."""

from __future__ import annotations

import os
import sys

from autograder.sandbox import sweep

LONG_NAME = "d" * 200
#: Levels of LONG_NAME folders whose path is longer than PATH_MAX (4096).
BEYOND_PATH_MAX = 30
LOCKED_MODE = 0o000


def _tree(top, name: str, levels: int, lock: bool = False) -> None:
    """``levels`` nested folders ``name`` under ``top``, made relative to each other (no long path is ever used)."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(levels):
        os.mkdir(name, dir_fd=fd)
        child = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = child
    with open(os.open("note", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd), "w") as note:
        note.write("left behind")
    if lock:
        os.chmod(fd, LOCKED_MODE)
    os.close(fd)


def test_a_tree_deeper_than_path_max_is_removed(tmp_path):
    top = tmp_path / "tmp"
    top.mkdir()
    _tree(top, LONG_NAME, BEYOND_PATH_MAX, lock=True)
    (top / "plain.txt").write_text("x")
    sweep.empty_folder(str(top))
    assert top.exists() and os.listdir(top) == []


def test_a_tree_deeper_than_the_recursion_limit_is_removed(tmp_path):
    top = tmp_path / "tmp"
    top.mkdir()
    _tree(top, "d", 2 * sys.getrecursionlimit())
    sweep.remove_tree(str(top))
    assert not top.exists()


def test_a_symbolic_link_is_removed_not_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    top = tmp_path / "tmp"
    top.mkdir()
    (top / "link").symlink_to(outside)
    sweep.remove_tree(str(top))
    assert not top.exists() and (outside / "keep.txt").exists()
