"""What a worker needs from the host: private copies of its files, and what it may read without bwrap."""

from __future__ import annotations

import os

import autograder
from autograder.paths import HIDDEN_TESTS_DIR
from autograder.sandbox import host

PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(autograder.__file__)))


def test_the_private_dir_holds_copies_readable_by_the_worker():
    root = host.private_dir()
    for name in host.WORKER_SOURCES:
        path = os.path.join(root, "worker", name)
        assert os.stat(path).st_mode & 0o004
    assert os.stat(root).st_mode & 0o005 == 0o005


def test_private_dirs_of_dead_graders_are_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(host.tempfile, "gettempdir", lambda: str(tmp_path))
    dead = tmp_path / f"{host.PRIVATE_DIR_PREFIX}999999999-abc"
    living = tmp_path / f"{host.PRIVATE_DIR_PREFIX}{os.getpid()}-abc"
    unrelated = tmp_path / "attn-sandbox-notapid"
    for folder in (dead, living, unrelated):
        folder.mkdir()
    host._remove_stale_private_dirs()
    assert not dead.exists() and living.exists() and unrelated.exists()


def _beneath(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")


def test_without_bwrap_nothing_of_the_project_or_of_any_site_packages_is_readable_but_numpy():
    readable = host.readable_without_bwrap()
    allowed = {*host.numpy_dirs().values(), os.path.join(host.private_dir(), "worker")}
    for forbidden in (PROJECT_ROOT, str(HIDDEN_TESTS_DIR), *host.host_site_packages()):
        leaks = [path for path in readable if path not in allowed and (_beneath(path, forbidden) or _beneath(forbidden, path))]
        assert leaks == [], forbidden


def test_the_carving_keeps_the_siblings_of_a_forbidden_folder(tmp_path):
    for name in ("lib/python/site-packages/pkg", "lib/python/os_module", "bin"):
        (tmp_path / name).mkdir(parents=True)
    carved = host._carve(str(tmp_path), [str(tmp_path / "lib/python/site-packages")])
    assert carved == [str(tmp_path / "bin"), str(tmp_path / "lib/python/os_module")]
