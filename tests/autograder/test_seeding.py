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
