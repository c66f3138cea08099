"""A course is a directory: every command given ``--course other/course.yml`` uses that course's files, never ours."""

from __future__ import annotations

import json
import re
import shutil
import io
import zipfile
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from autograder.cli import main
from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.export import ExportContext
from autograder.export.cases import hidden_cases
from autograder.export.gradescope import write_zip
from autograder.layout import CourseDirectory
from autograder.paths import HIDDEN_TESTS_DIR, SOLUTIONS_DIR

COURSE = load_course()
FIRST = COURSE.assignments[0]
#: Words of the first assignment's notebook prose that the copy changes, and what it says instead.
PROSE = "instead of squeezing the whole input"
MARKED_PROSE = "instead of squeezing (other course) the whole input"
#: A hidden test only the copy has.
EXTRA_TEST = "test_only_the_other_course_has_this"


def _other_course(root: Path) -> Path:
    """A copy of this course, English only, whose first notebook says MARKED_PROSE and whose suite has EXTRA_TEST."""
    data = yaml.safe_load(DEFAULT_COURSE_FILE.read_text(encoding="utf-8"))
    data.update(languages=["en"], feedback_language="en")
    course_file = root / "course.yml"
    course_file.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    shutil.copytree(SOLUTIONS_DIR, root / "solutions")
    source = root / "solutions" / FIRST.id / "notebook.py"
    text = source.read_text(encoding="utf-8")
    assert PROSE in text, "the notebook's prose changed: pick other words for PROSE"
    source.write_text(text.replace(PROSE, MARKED_PROSE, 1), encoding="utf-8")
    for masters in (root / "solutions").iterdir():  # an English-only course has no Chinese anywhere
        for translated in masters.glob("docstrings.*.yml"):
            translated.unlink()
        if (masters / "notebook.py").is_file():
            notebook = (masters / "notebook.py").read_text(encoding="utf-8")
            cells = re.split(r"(?m)^(?=# %%)", notebook)
            kept = "".join(cell for cell in cells if not cell.startswith('# %% [markdown] lang="zh"'))
            (masters / "notebook.py").write_text(kept, encoding="utf-8")
    shutil.copytree(HIDDEN_TESTS_DIR, root / "hidden_tests", ignore=shutil.ignore_patterns("__pycache__"))
    function = FIRST.questions[0].function
    (root / "hidden_tests" / FIRST.id / "test_other.py").write_text(
        "import pytest\n\n\n"
        f"@pytest.mark.question({function!r})\n"
        f"def {EXTRA_TEST}(submission, tol):\n"
        f'    """Only in the other course."""\n', encoding="utf-8")
    return course_file


@pytest.fixture(scope="module")
def other(tmp_path_factory) -> Path:
    return _other_course(tmp_path_factory.mktemp("other"))


def _cli(*args: str) -> str:
    done = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert done.exit_code == 0, done.output
    return done.output


def test_the_layout_of_another_course_is_all_beside_its_file(other):
    layout = CourseDirectory.of(other)
    assert {layout.solutions, layout.releases, layout.hidden_tests} == {
        other.parent / "solutions", other.parent / "assignments", other.parent / "hidden_tests"}
    assert load_course(other).layout == layout and not layout.is_project_course
    assert CourseDirectory.of(None).is_project_course and CourseDirectory.of(DEFAULT_COURSE_FILE).is_project_course


def test_build_writes_the_other_courses_release_beside_it_in_english_only(other):
    _cli("--course", str(other), "build", FIRST.id)
    release = other.parent / "assignments" / FIRST.id
    assert MARKED_PROSE in (release / FIRST.notebook).read_text(encoding="utf-8")
    assert not [p.name for p in release.iterdir() if ".zh." in p.name]  # an English-only course needs no Chinese
    _cli("--course", str(other), "build", "--check-only", FIRST.id)


def test_an_in_kernel_export_records_the_other_courses_own_suites(other, tmp_path, monkeypatch):
    import autograder.export.kernel_code as kernel_code

    seen = []
    real = kernel_code.packed_questions
    monkeypatch.setattr(kernel_code, "packed_questions", lambda course, spec, tests_dir: seen.append(tests_dir) or
                        real(course, spec, tests_dir))
    done = CliRunner().invoke(main, ["--course", str(other), "export", "nbgrader", FIRST.id, "--out", str(tmp_path / "n")])
    assert done.exit_code == 0, done.output
    assert seen and all(Path(d).resolve() == (other.parent / "hidden_tests").resolve() for d in seen)
    sources = [p.read_text(encoding="utf-8") for p in (tmp_path / "n").rglob("*.ipynb")]
    assert sources and all(PROSE not in t.replace(MARKED_PROSE, "") for t in sources)


@pytest.mark.parametrize("target", ["github"])
def test_an_export_ships_the_other_courses_files(other, tmp_path, target):
    out = tmp_path / target
    _cli("--course", str(other), "export", target, FIRST.id, "--out", str(out))
    notebooks = [p for p in out.rglob("*.ipynb")]
    assert notebooks, f"{target} wrote no notebook"
    texts = [p.read_text(encoding="utf-8") for p in notebooks]
    assert all(MARKED_PROSE in t and PROSE not in t.replace(MARKED_PROSE, "") for t in texts)


def test_the_otter_export_lists_the_other_courses_hidden_tests(other):
    names = [case.name for case in hidden_cases(FIRST.id, CourseDirectory.of(other).hidden_tests)]
    assert EXTRA_TEST in names
    assert EXTRA_TEST not in [case.name for case in hidden_cases(FIRST.id)]


def test_the_gradescope_zip_carries_the_other_courses_bundle_with_its_suite_and_release(other, tmp_path):
    from autograder.bundle.wheel import write_bundle

    course = load_course(other)
    wheel = write_bundle(course, tmp_path / "dist")
    context = ExportContext(course, other, (FIRST.id,))
    path = write_zip(tmp_path / "autograder.zip", context, FIRST, wheel)
    with zipfile.ZipFile(path) as archive, zipfile.ZipFile(io.BytesIO(archive.read(wheel.name))) as bundle:
        names = bundle.namelist()
        assert f"attn_course_content/hidden_tests/{FIRST.id}/test_other.py" in names
        assert MARKED_PROSE in bundle.read(f"attn_course_content/assignments/{FIRST.id}/{FIRST.notebook}").decode()


def test_grading_with_the_other_course_runs_its_hidden_suite(other, tmp_path):
    master = (other.parent / "solutions" / FIRST.id / FIRST.module).read_text(encoding="utf-8")
    submission = tmp_path / FIRST.module
    submission.write_text(master, encoding="utf-8")
    out = tmp_path / "result.json"
    _cli("--course", str(other), "grade", FIRST.id, str(submission), "--format", "json", "--out", str(out))
    tests = [t["name"] for q in json.loads(out.read_text(encoding="utf-8"))["questions"] for t in q["tests"]]
    assert EXTRA_TEST in tests
