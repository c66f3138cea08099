"""A question without a public case of its own gets its hidden test's worked example as one."""

from __future__ import annotations

from autograder.build.public_cases import EXAMPLE_CASE, example_cases

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
