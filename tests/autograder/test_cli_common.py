"""One command line: the same option names everywhere, options before or after the subcommand, help for every
option, usage errors on stderr, Ctrl-C's exit status and what it kept, progress on stderr, --quiet."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from autograder.build.markers import keep_solutions
from autograder.cli import main
from autograder.cli_common import INTERRUPTED_EXIT, IntList
from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.paths import ASSIGNMENTS_DIR, SOLUTIONS_DIR

COURSE = load_course()
HW1 = COURSE.assignment("hw1_scaled_attention")
SOLUTION = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
ATTN_COURSE = Path(sys.executable).with_name("attn-course")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _commands():
    return [(name, command) for name, command in main.commands.items()]


@pytest.mark.parametrize("name, command", _commands(), ids=[n for n, _ in _commands()])
def test_every_option_of_every_command_has_help_text(name, command):
    undocumented = [p.opts for p in command.params if isinstance(p, click.Option) and not (p.help or "").strip()]
    assert undocumented == []


def test_every_option_of_the_group_has_help_text_and_one_name_per_thing():
    assert all((p.help or "").strip() for p in main.params if isinstance(p, click.Option))
    names = {opt for _, command in _commands() for p in command.params for opt in p.opts}
    assert "--db" not in names and "--gradebook" in names


def test_course_is_accepted_after_the_subcommand_as_before_it(tmp_path):
    bad = tmp_path / "course.yml"
    bad.write_text(DEFAULT_COURSE_FILE.read_text(encoding="utf-8").replace("call_timeout_s: 5 ", "call_timeout_s: -5 "), encoding="utf-8")
    for args in (("--course", bad, "config"), ("config", "--course", bad)):
        result = run(*args)
        assert result.exit_code == 1 and "call_timeout_s" in result.stderr, args


def test_d_k_takes_a_comma_separated_list_or_repeats():
    for args in (("--d-k", "1,4,16"), ("--d-k", "1", "--d-k", "4,16")):
        result = run("variance", *args, "--samples", "100")
        assert result.exit_code == 0, result.output
        rows = [line.split()[0] for line in result.stdout.splitlines() if line.strip() and line.split()[0].isdigit()]
        assert rows == ["1", "4", "16"], result.stdout


@pytest.mark.parametrize("value", ["0", "1,x", ","])
def test_d_k_refuses_what_is_not_a_list_of_positive_integers(value):
    result = run("variance", "--d-k", value)
    assert result.exit_code == 2 and "--d-k" in result.stderr


def test_int_list_reads_commas_and_spaces():
    assert IntList().convert("1, 4,16", None, None) == (1, 4, 16)


def test_a_file_that_is_not_a_gradebook_is_a_usage_error_and_stays_untouched(tmp_path):
    not_a_gradebook = tmp_path / "grades.csv"
    not_a_gradebook.write_text("student,score\nada,9\n", encoding="utf-8")
    result = run("gradebook", "--gradebook", not_a_gradebook)
    assert result.exit_code == 2
    assert "is not a gradebook: it is not an SQLite database" in result.stderr and result.stdout == ""
    assert not_a_gradebook.read_text(encoding="utf-8") == "student,score\nada,9\n"
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE t (x)")
    assert "it has no submissions table" in run("gradebook", "--gradebook", other).stderr


def test_an_unknown_assignment_in_gradebook_is_a_usage_error_naming_the_known_ones(tmp_path):
    from autograder.gradebook import Gradebook

    path = tmp_path / "gradebook.sqlite3"
    Gradebook(path).close()
    result = run("gradebook", "--gradebook", path, "--assignment", "hw9")
    assert result.exit_code == 2 and "no assignment 'hw9'" in result.stderr and HW1.id in result.stderr


@pytest.fixture
def class_folder(tmp_path) -> Path:
    folder = tmp_path / "class"
    for student in ("ada", "ben"):
        (folder / student).mkdir(parents=True)
        (folder / student / HW1.module).write_text(SOLUTION, encoding="utf-8")
    return folder


@pytest.mark.parametrize("option", [("--format", "json"), ("--out", "x.txt"), ("--submitted-at", "2027-03-08T10:00:00+0000"),
                                    ("--seed", "3")])
def test_options_for_one_submission_are_refused_for_a_class_folder(class_folder, option):
    result = run("grade", HW1.id, class_folder, *option)
    assert result.exit_code == 2
    assert f"{option[0]} apply to one submission" in result.stderr and "class folder" in result.stderr


def test_options_for_a_class_folder_are_refused_for_one_submission(class_folder):
    result = run("grade", HW1.id, class_folder / "ada" / HW1.module, "--regrade")
    assert result.exit_code == 2 and "--regrade apply to a class folder" in result.stderr


@pytest.mark.slow
def test_progress_goes_to_stderr_and_results_to_stdout_and_quiet_leaves_only_the_summary(class_folder, tmp_path):
    result = run("grade", HW1.id, class_folder, "-j", "1", "--gradebook", tmp_path / "a.sqlite3")
    assert result.exit_code == 0, result.output
    assert "grading hw1_scaled_attention" in result.stderr and "grading hw1_scaled_attention" not in result.stdout
    assert "2 graded, 0 already graded" in result.stdout and "this batch" in result.stdout
    quiet = run("grade", HW1.id, class_folder, "-j", "1", "--gradebook", tmp_path / "b.sqlite3", "-q")
    assert quiet.exit_code == 0 and quiet.stderr == ""
    assert quiet.stdout.strip().splitlines() == [f"2 graded, 0 already graded (skipped), 0 grader errors -> {tmp_path / 'b.sqlite3'}"]


def test_ctrl_c_during_a_batch_exits_130_saying_what_was_kept(class_folder, tmp_path, monkeypatch):
    import autograder.batch.runner

    def interrupted(*args, on_progress, **kwargs):
        on_progress(object())  # one entry graded and committed
        on_progress(None)  # one already there
        raise KeyboardInterrupt

    monkeypatch.setattr(autograder.batch.runner, "grade_batch", interrupted)
    result = run("grade", HW1.id, class_folder, "--gradebook", tmp_path / "g.sqlite3")
    assert result.exit_code == INTERRUPTED_EXIT
    assert result.stderr.strip().splitlines()[-1] == (f"interrupted: 1 of 2 entries were graded and are kept in {tmp_path / 'g.sqlite3'} "
                                     "(1 were already there); run the same command again to grade the rest")


def test_ctrl_c_anywhere_else_exits_130_saying_nothing_was_written(monkeypatch):
    import attn_reference.variance

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(attn_reference.variance, "variance_table", interrupted)
    result = run("variance")
    assert result.exit_code == INTERRUPTED_EXIT and "interrupted: nothing was written" in result.stderr


SLEEPER = "import time\ntime.sleep(30)\n"


@pytest.mark.slow
def test_a_real_ctrl_c_stops_a_batch_with_130_and_keeps_what_was_graded(tmp_path):
    folder = tmp_path / "class"
    (folder / "ada").mkdir(parents=True)
    (folder / "ada" / HW1.module).write_text(SOLUTION, encoding="utf-8")
    for student in ("yan", "zed"):  # each hangs at import until the call timeout
        (folder / student).mkdir()
        (folder / student / HW1.module).write_text(SOLUTION + SLEEPER, encoding="utf-8")
    gradebook = tmp_path / "g.sqlite3"
    process = subprocess.Popen([ATTN_COURSE, "grade", HW1.id, folder, "-j", "1", "--gradebook", gradebook],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, process_group=0)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not _graded_rows(gradebook):
        time.sleep(0.1)
    os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: to the whole foreground process group
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == INTERRUPTED_EXIT, stderr
    assert "interrupted: 1 of 3 entries were graded and are kept in" in stderr and "Traceback" not in stderr
    assert _graded_rows(gradebook) == 1


def _graded_rows(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path) as connection:
            return connection.execute("SELECT COUNT(*) FROM submissions").fetchone()[0]
    except sqlite3.DatabaseError:
        return 0


@pytest.mark.slow
def test_check_json_and_quiet(tmp_path):
    stub = tmp_path / HW1.module
    stub.write_text((ASSIGNMENTS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"), encoding="utf-8")
    result = run("check", HW1.id, stub, "--format", "json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["passed"] is False and report["path"] == str(stub.resolve())
    softmax = report["questions"][0]
    assert softmax["function"] == "softmax" and len(softmax["failures"]) == 1  # five identical failures, grouped
    assert len(softmax["failures"][0]["checks"]) == softmax["checks"]
    quiet = run("check", HW1.id, stub, "-q")
    assert quiet.exit_code == 1 and quiet.stdout == f"0/{HW1.max_points:g} points on the public checks of {HW1.id}\n"


def test_a_nonexistent_path_to_check_is_a_usage_error(tmp_path):
    result = run("check", HW1.id, tmp_path / "nothing.py")
    assert result.exit_code == 2 and "does not exist" in result.stderr


def test_config_shows_the_values_in_effect(tmp_path):
    changed = tmp_path / "course.yml"
    changed.write_text(DEFAULT_COURSE_FILE.read_text(encoding="utf-8").replace("call_timeout_s: 5 ", "call_timeout_s: 7 "),
                       encoding="utf-8")
    lines = run("config", "--course", changed).stdout.splitlines()
    at = lines.index("defaults.call_timeout_s")
    assert lines[at + 1] == "    in effect: 7.0" and lines[at + 2] == "    default: 5.0"
    at = lines.index("assignments[].id")
    assert lines[at + 1] == "    in effect: " + ", ".join(a.id for a in COURSE.assignments)


def test_config_rejects_allowed_imports_that_do_not_exist(tmp_path):
    changed = tmp_path / "course.yml"
    changed.write_text(DEFAULT_COURSE_FILE.read_text(encoding="utf-8").replace("allowed_imports: [numpy,", "allowed_imports: [nunpy, numpy,"),
                       encoding="utf-8")
    result = run("config", "--course", changed)
    assert result.exit_code == 1 and "allowed_imports names modules that do not exist: nunpy" in result.stderr


def test_ctrl_c_during_a_build_says_the_files_written_so_far_were_kept(monkeypatch):
    import autograder.build

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(autograder.build, "build_release", interrupted)
    result = run("build", "--check-only")
    assert result.exit_code == INTERRUPTED_EXIT and "interrupted: the release files written so far were kept" in result.stderr


RUN_AND_EXIT_PROGRAM = '''
import atexit, sys, click
from autograder.cli_common import run_and_exit

atexit.register(lambda: print("atexit ran", file=sys.stderr))

@click.command()
@click.argument("what")
def program(what):
    if what == "fail":
        raise click.ClickException("it failed")
    if what == "exit-3":
        sys.exit(3)
    for line in range(20000):
        click.echo(f"line {line}")

run_and_exit(program)
'''


@pytest.mark.parametrize("argv, code, stderr_has", [
    (["print"], 0, ""), (["fail"], 1, "it failed"), ([], 2, "Missing argument"), (["exit-3"], 3, ""),
])
def test_run_and_exit_keeps_exit_codes_output_and_atexit_handlers(argv, code, stderr_has):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", RUN_AND_EXIT_PROGRAM, *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == code, done.stderr
    assert "atexit ran" in done.stderr and stderr_has in done.stderr
    if argv == ["print"]:
        assert done.stdout.splitlines()[-1] == "line 19999" and len(done.stdout.splitlines()) == 20000
