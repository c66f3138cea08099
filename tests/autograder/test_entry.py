"""The program's entry point: the head start first, pydantic's plugin scan off, then the command line."""

import os
import sys
import tomllib

import autograder.cli
from autograder import entry
from autograder.paths import PROJECT_ROOT
from autograder.sandbox import headstart


def test_the_installed_program_starts_at_the_entry_point():
    project = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["scripts"]["attn-course"] == "autograder.entry:run"


def test_the_head_start_sees_the_arguments_and_the_command_line_runs_with_plugins_off(monkeypatch):
    monkeypatch.delenv(entry.PYDANTIC_PLUGINS_ENV, raising=False)
    seen = []
    monkeypatch.setattr(headstart, "start_early", lambda argv: seen.append(("head start", argv)))
    monkeypatch.setattr(autograder.cli, "run", lambda: seen.append(("cli", os.environ.get(entry.PYDANTIC_PLUGINS_ENV))))
    monkeypatch.setattr(sys, "argv", ["attn-course", "--course", "c.yml", "grade", "hw1", "f.py"])
    entry.run()
    assert seen == [("head start", ["--course", "c.yml", "grade", "hw1", "f.py"]), ("cli", "__all__")]


def test_the_kit_entry_point_starts_the_kit_command_line_after_the_head_start(monkeypatch):
    import autograder.kit.cli

    seen = []
    monkeypatch.setattr(headstart, "start_early", lambda argv: seen.append(("head start", argv)))
    monkeypatch.setattr(autograder.kit.cli, "run", lambda: seen.append(("kit", None)))
    monkeypatch.setattr(sys, "argv", ["attn-course", "check", "hw1"])
    entry.run_kit()
    assert seen == [("head start", ["check", "hw1"]), ("kit", None)]
