"""Writing an export: the registry is the CLI's choices; a non-empty folder is refused unless --force."""

import pytest
from click.testing import CliRunner

from autograder.cli import main
from autograder.export.nbgrader import nbgrader_assignment
from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.export import TARGETS, ExportContext, ExportError, export_to
from autograder.paths import PROJECT_ROOT

COURSE = load_course()
CONTEXT = ExportContext(COURSE, DEFAULT_COURSE_FILE, (COURSE.assignments[0].id,))


def test_the_cli_offers_exactly_the_registered_targets():
    help_text = CliRunner().invoke(main, ["export", "--help"]).output
    lines = help_text.split("Commands:")[1].splitlines()
    listed = [line.split()[0] for line in lines if line.startswith("  ") and not line.startswith("   ")]
    assert listed == list(TARGETS)
    assert set(TARGETS) == {"nbgrader", "otter", "gradescope", "github"}


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_each_target_takes_its_own_options_and_no_other_targets(name, tmp_path):
    own = {flag for option in TARGETS[name].options for flag in option.opts}
    others = {flag for target in TARGETS.values() for option in target.options for flag in option.opts} - own
    help_text = CliRunner().invoke(main, ["export", name, "--help"]).output
    assert all(flag in help_text for flag in own) and not any(flag in help_text for flag in others)
    for flag in others:
        done = CliRunner().invoke(main, ["export", name, "--out", str(tmp_path / "x"), flag, "1"])
        assert done.exit_code == 2 and "No such option" in done.output


def test_a_non_empty_folder_is_refused_unless_forced(tmp_path):
    (tmp_path / "old.txt").write_text("x", encoding="utf-8")
    with pytest.raises(ExportError, match="not empty"):
        export_to(TARGETS["github"], CONTEXT, tmp_path)
    export_to(TARGETS["github"], CONTEXT, tmp_path, force=True)
    assert not (tmp_path / "old.txt").exists() and any(tmp_path.rglob("grade.yml"))


def test_force_never_empties_the_project(monkeypatch):
    with pytest.raises(ExportError, match="refusing to empty"):
        export_to(TARGETS["github"], CONTEXT, PROJECT_ROOT, force=True)


def test_the_cli_exports_every_assignment_by_default_and_reports_errors_as_messages(tmp_path):
    runner = CliRunner()
    done = runner.invoke(main, ["export", "nbgrader", "--out", str(tmp_path / "course"), "--seed", "5"])
    assert done.exit_code == 0, done.output
    first = COURSE.languages[0]
    assert sorted(p.parent.name for p in (tmp_path / "course").glob("source/*/*.ipynb")) == \
        sorted(nbgrader_assignment(a.id, language, first) for a in COURSE.assignments for language in COURSE.languages)
    assert all(f"{a.id}: seed 5" in done.output for a in COURSE.assignments)
    again = runner.invoke(main, ["export", "nbgrader", "--out", str(tmp_path / "course")])
    assert again.exit_code == 1 and "not empty" in again.output and "Traceback" not in again.output
