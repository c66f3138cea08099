"""A question without a public case of its own gets its hidden test's worked example as one."""

from __future__ import annotations

import io

import numpy as np

from autograder.build.public_cases import EXAMPLE_CASE, example_cases, same_archive

SUITE = '''FUNCTION = "f"
EXAMPLE = (7, 2)
'''


def test_a_literal_worked_example_becomes_the_public_case(tmp_path):
    (tmp_path / "test_f.py").write_text(SUITE, encoding="utf-8")
    [case] = example_cases(tmp_path, ["f"])
    assert (case.name, case.function, case.args) == (EXAMPLE_CASE.format(function="f"), "f", (7, 2))


def test_no_file_an_empty_or_computed_example_gives_no_case(tmp_path):
    (tmp_path / "test_g.py").write_text("EXAMPLE = ()  # TODO the arguments\n", encoding="utf-8")
    (tmp_path / "test_h.py").write_text("import numpy as np\nEXAMPLE = (np.ones(3),)\n", encoding="utf-8")
    (tmp_path / "test_k.py").write_text("EXAMPLE = [1, 2]\n", encoding="utf-8")
    assert example_cases(tmp_path, ["missing", "g", "h", "k"]) == []


def test_the_gate_names_the_file_of_a_computed_example_and_of_a_last_axis_of_the_avoided_size(tmp_path):
    from autograder.build.public_cases import AVOIDED_LAST_AXIS, example_problems

    suite = tmp_path / "hidden_tests" / "hw9"
    suite.mkdir(parents=True)
    avoided = [[0.5] * AVOIDED_LAST_AXIS, [0.25] * AVOIDED_LAST_AXIS]
    other = [[0.5] * (AVOIDED_LAST_AXIS + 1), [0.25] * (AVOIDED_LAST_AXIS + 1)]
    (suite / "test_f.py").write_text(SUITE, encoding="utf-8")  # numbers: fine
    (suite / "test_g.py").write_text("EXAMPLE = ()  # TODO the arguments\n", encoding="utf-8")  # the TODO gate's
    (suite / "test_h.py").write_text("import numpy as np\nEXAMPLE = (np.ones((2, 3)),)\n", encoding="utf-8")
    (suite / "test_k.py").write_text(f"EXAMPLE = ({avoided!r},)\n", encoding="utf-8")
    (suite / "test_m.py").write_text(f"EXAMPLE = ({other!r}, 2)\n", encoding="utf-8")  # the honest control
    problems = example_problems(suite, ["f", "g", "h", "k", "m", "missing"])
    assert len(problems) == 2
    assert problems[0].startswith("hidden_tests/hw9/test_h.py: EXAMPLE must be a tuple of plain literals")
    assert problems[1].startswith(f"hidden_tests/hw9/test_k.py: an EXAMPLE array has {AVOIDED_LAST_AXIS} entries")


def test_the_authoring_gate_reports_a_computed_example(tmp_path):
    from autograder.build.authoring import authoring_problems
    from autograder.config import load_course

    assignment = load_course().assignments[0]
    suite = tmp_path / assignment.id
    suite.mkdir()
    function = assignment.functions[0]
    (suite / f"test_{function}.py").write_text(
        f'import numpy as np\nimport pytest\nEXAMPLE = (np.ones((2, 3)),)\n@pytest.mark.question("{function}")\n'
        'def test_x():\n    pass\n', encoding="utf-8")
    problems = authoring_problems(assignment, tmp_path)
    assert any(p.startswith(f"{tmp_path.name}/{assignment.id}/test_{function}.py: EXAMPLE must be") for p in problems)


def _archive(**arrays) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def test_an_archive_built_on_another_machine_is_the_same_release_but_a_changed_answer_is_not():
    x = np.random.default_rng(5).standard_normal((4, 6))
    built = _archive(out=x @ x.T, n=np.arange(3))
    last_bits = _archive(out=np.nextafter(x @ x.T, np.inf), n=np.arange(3))  # one ulp off, as another BLAS gives
    assert same_archive(built, last_bits)
    assert not same_archive(built, _archive(out=x @ x.T + 1e-9, n=np.arange(3)))  # a real change of an answer
    assert not same_archive(built, _archive(out=(x @ x.T).astype(np.float32), n=np.arange(3)))
    assert not same_archive(built, _archive(out=x @ x.T, n=np.arange(1, 4)))
    assert not same_archive(built, b"not an archive")
