"""Derived seeds: the same code, the same seed; any code change, another; layout and comments, none."""

from __future__ import annotations

import ast

import pytest

from autograder.seeding import DERIVED, FRESH, GIVEN, SECRET_ENV, SECRET_FILE, choose_seed, course_secret, derived_seed, new_secret

CODE = "import numpy as np\n\ndef f(x):\n    return np.asarray(x) + 1\n"
SECRET = b"course secret"


def _seed(code: str, secret: bytes = SECRET, assignment: str = "hw") -> int:
    return derived_seed(secret, assignment, ast.parse(code))


def test_whitespace_blank_lines_and_comments_do_not_change_the_seed():
    reformatted = "import numpy as np   # numpy\n\n\n\ndef f( x ):\n    # add one\n    return np.asarray( x )+1\n"
    assert _seed(reformatted) == _seed(CODE)


@pytest.mark.parametrize("changed", [CODE.replace("+ 1", "+ 2"), CODE.replace("x", "y"),
                                     CODE.replace("def f(x):\n", 'def f(x):\n    """Docs."""\n')])
def test_any_change_to_the_code_draws_another_seed(changed):
    assert _seed(changed) != _seed(CODE)


def test_the_secret_and_the_assignment_change_the_seed():
    assert _seed(CODE, secret=b"another") != _seed(CODE)
    assert _seed(CODE, assignment="hw2") != _seed(CODE)
    assert _seed(CODE, secret=b"x" * 500) != _seed(CODE, secret=b"x" * 501), "long secrets are used whole"


def test_a_given_seed_wins_and_without_a_secret_each_run_is_fresh():
    tree = ast.parse(CODE)
    assert choose_seed(7, SECRET, "hw", tree).how == GIVEN and choose_seed(7, SECRET, "hw", tree).value == 7
    assert choose_seed(None, SECRET, "hw", tree).how == DERIVED
    fresh = {choose_seed(None, None, "hw", tree) for _ in range(3)}
    assert all(seed.how == FRESH for seed in fresh) and len({seed.value for seed in fresh}) == 3


def test_the_secret_comes_from_the_environment_first_then_the_file_beside_course_yml(tmp_path, monkeypatch):
    course = tmp_path / "course.yml"
    course.write_text("")
    monkeypatch.delenv(SECRET_ENV, raising=False)
    assert course_secret(course) is None
    path = new_secret(course)
    assert path.name == SECRET_FILE and (path.stat().st_mode & 0o777) == 0o600
    assert course_secret(course) == path.read_text().strip().encode()
    with pytest.raises(FileExistsError):
        new_secret(course)
    monkeypatch.setenv(SECRET_ENV, "from the environment")
    assert course_secret(course) == b"from the environment"


# --- wired into grading: the CLI, the record, the batch's resume key, the Gradescope zip; never to students ---


def _grade_json(course_file, submission, *extra):
    import json

    from click.testing import CliRunner

    from autograder.cli import main

    done = CliRunner().invoke(main, ["--course", str(course_file), "grade", FIRST.id, str(submission), "--format", "json",
                                     *extra], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    return json.loads(done.output)


from autograder.config import load_course as _load_course  # noqa: E402 - the grading half of this file

FIRST = _load_course().assignments[0]


@pytest.fixture
def course(tmp_path, monkeypatch):
    from tests.autograder.support import course_beside

    monkeypatch.delenv(SECRET_ENV, raising=False)
    return course_beside(tmp_path / "course")


def _buggy(course_file) -> str:
    """The master with its first question's solution replaced by something wrong but input-dependent (scores vary)."""
    from autograder.build.markers import keep_solutions

    layout = _load_course(course_file).layout
    return keep_solutions(layout.master(FIRST).read_text(encoding="utf-8"))


def test_grading_twice_gives_the_same_seed_and_grade_and_a_comment_changes_neither(course, tmp_path):
    source = _buggy(course)
    first, second = tmp_path / "a" / FIRST.module, tmp_path / "b" / FIRST.module
    for path, text in ((first, source), (second, "# my notes\n\n" + source + "\n\n# the end\n")):
        path.parent.mkdir()
        path.write_text(text, encoding="utf-8")
    one, again, commented = _grade_json(course, first), _grade_json(course, first), _grade_json(course, second)
    assert (course.parent / SECRET_FILE).is_file()  # made by the first grade, once
    assert one["seed_source"] == again["seed_source"] == commented["seed_source"] == DERIVED
    assert one["seed"] == again["seed"] == commented["seed"] and one["score"] == again["score"] == commented["score"]


def test_a_code_change_draws_new_inputs_and_seed_still_replays(course, tmp_path):
    source = _buggy(course)
    path, changed = tmp_path / FIRST.module, tmp_path / "changed" / FIRST.module
    path.write_text(source, encoding="utf-8")
    changed.parent.mkdir()
    changed.write_text(source + "\n\nUNUSED = 1\n", encoding="utf-8")
    derived, other = _grade_json(course, path), _grade_json(course, changed)
    assert derived["seed"] != other["seed"]
    replay = _grade_json(course, path, "--seed", str(other["seed"]))
    assert (replay["seed"], replay["seed_source"]) == (other["seed"], GIVEN)


def test_the_secret_is_in_the_gradescope_zip_and_in_no_release_or_kit(course, tmp_path):
    import zipfile

    from autograder.build import build_release
    from autograder.export import ExportContext
    from autograder.export.gradescope import write_zip
    from autograder.kit.wheel import write_kit

    loaded = _load_course(course)
    wheel = tmp_path / "attn_course-0-py3-none-any.whl"
    wheel.write_bytes(b"x")
    archive = write_zip(tmp_path / "autograder.zip", ExportContext(loaded, course, (FIRST.id,)), FIRST, wheel)
    secret = (course.parent / SECRET_FILE).read_bytes().strip()
    with zipfile.ZipFile(archive) as opened:
        assert opened.read(SECRET_FILE).strip() == secret
    release = build_release(loaded, FIRST.id)
    assert not any(secret in (v if isinstance(v, bytes) else v.encode()) for v in release.values())
    kit = write_kit(tmp_path / "kit")
    with zipfile.ZipFile(kit) as opened:
        assert not any(secret in opened.read(name) for name in opened.namelist())
        assert not any(name.endswith(SECRET_FILE) for name in opened.namelist())


def test_a_new_secret_makes_the_batch_grade_again(course):
    from autograder.batch.resume import grading_fingerprint

    (course.parent / SECRET_FILE).unlink(missing_ok=True)  # a course without its secret yet
    before = grading_fingerprint(course, FIRST.id)
    new_secret(course)
    assert grading_fingerprint(course, FIRST.id) != before
