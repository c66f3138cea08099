"""check's exit codes: 0 every public check passed, 1 one failed, 2 it could not run; each set-up message names a next step."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from click.testing import CliRunner

from autograder import config
from autograder.build.markers import keep_solutions
from autograder.check.command import CHECKS_FAILED_EXIT, CHECKS_PASSED_EXIT, SET_UP_PROBLEM_EXIT
from autograder.check.release import MANIFEST
from autograder.config import load_course
from autograder.i18n import msg, render
from autograder.kit.cli import main
from autograder.paths import ASSIGNMENTS_DIR, SOLUTIONS_DIR, public_tests_name

COURSE = load_course()
HW1, HW2 = COURSE.assignment("hw1_scaled_attention"), COURSE.assignment("hw2_rnn_attention")


@pytest.fixture
def student(tmp_path, monkeypatch):
    """A student's machine: no course file, only the assignment folder, the current folder."""
    monkeypatch.setattr(config, "DEFAULT_COURSE_FILE", tmp_path / "no course.yml")
    folder = tmp_path / "my homework" / HW1.id
    shutil.copytree(ASSIGNMENTS_DIR / HW1.id, folder, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    monkeypatch.chdir(folder)
    return folder


def _check(*args):
    return CliRunner().invoke(main, ["check", *[str(a) for a in args]])


def test_the_codes_are_distinct():
    assert len({CHECKS_PASSED_EXIT, CHECKS_FAILED_EXIT, SET_UP_PROBLEM_EXIT}) == 3


@pytest.mark.slow
def test_passed_is_0_and_a_failed_check_is_1(student):
    assert _check(HW1.id).exit_code == CHECKS_FAILED_EXIT == 1
    (student / HW1.module).write_text(keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8")),
                                      encoding="utf-8")
    passed = _check(HW1.id, "--format", "json")
    assert passed.exit_code == CHECKS_PASSED_EXIT == 0 and json.loads(passed.stdout)["passed"]


def test_outside_any_assignment_folder_is_2_and_says_where_to_run(student, tmp_path):
    os.chdir(tmp_path)
    done = _check(HW1.id, tmp_path)
    assert done.exit_code == SET_UP_PROBLEM_EXIT == 2
    assert f"run `attn-course check {HW1.id}` inside your assignment folder (the one holding {MANIFEST})" in done.stderr
    assert "attn-course build" not in done.stderr


def test_an_assignment_folder_without_its_manifest_is_2_and_says_to_copy_it_back(student):
    (student / MANIFEST).unlink()
    done = _check(HW1.id)
    assert done.exit_code == 2
    assert f"{student} is an assignment folder without its {MANIFEST}: download the assignment folder again" in done.stderr
    assert "no release" not in done.stderr


def test_a_missing_test_file_is_2_and_says_to_copy_it_back_never_to_build(student):
    tests = public_tests_name(HW1.module)
    (student / tests).unlink()
    done = _check(HW1.id)
    assert done.exit_code == 2
    assert f"download the assignment folder again and copy {tests} from it into this folder" in done.stderr
    assert "attn-course build" not in done.stderr


def test_another_assignments_folder_is_2_naming_the_right_command(student):
    done = _check(HW2.id)
    assert done.exit_code == 2 and f"run `attn-course check {HW1.id}` there" in done.stderr


def test_a_set_up_message_is_in_the_language_asked_for(student):
    (student / MANIFEST).unlink()
    done = _check(HW1.id, "--lang", "zh")
    lost = msg("{folder} is an assignment folder without its {manifest}: download the assignment "
               "folder again and copy {manifest} from it into this folder", folder=str(student), manifest=MANIFEST)
    assert render(lost, "zh") != render(lost, "en")
    assert done.exit_code == 2 and render(lost, "zh") in done.stderr
