"""The leak finder on small literal inputs: which lines are forbidden, from where, and where a leak is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from autograder.build.leaks import (
    MIN_LEAK_LINE_CHARS,
    Leak,
    _readable_lines,
    code_lines,
    find_leaks,
    forbidden_lines,
    project_forbidden_lines,
)

PROJECT = Path(__file__).resolve().parents[3]
SOLUTION_LINE = "weights = np.exp(shifted) / total"
HIDDEN_LINE = "assert np.allclose(result.sum(axis=-1), 1.0)"
REFERENCE_LINE = "scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)"
MASTER = f"def f(x):\n    ### BEGIN SOLUTION\n    {SOLUTION_LINE}\n    ### END SOLUTION\n"

MODULE = '''\
"""Module docstring that is long enough to count as a line."""

SCALE_FACTOR_FOR_THE_TESTS = compute_scale(42)
def attention_weights(
    scores_of_every_query_and_key,
    temperature_of_the_softmax=1.0) -> float:
    """Softmax of the scores, long enough.

    A second docstring line that is long enough to count.
    """
    shifted_scores = scores_of_every_query_and_key - 1.0
    return shifted_scores / temperature_of_the_softmax


def no_docstring(first_argument_name, second_argument_name):
    combined_value_of_both = first_argument_name + second_argument_name
    if combined_value_of_both_is_positive_here:
        "a string leading a block is documentation"
    return combined_value_of_both
'''


def test_code_lines_keep_statements_and_drop_docstrings_and_signatures():
    assert code_lines(MODULE) == [
        "SCALE_FACTOR_FOR_THE_TESTS = compute_scale(42)",
        "shifted_scores = scores_of_every_query_and_key - 1.0",
        "return shifted_scores / temperature_of_the_softmax",
        "combined_value_of_both = first_argument_name + second_argument_name",
        "if combined_value_of_both_is_positive_here:",
        "return combined_value_of_both",
    ]


def test_a_line_of_exactly_the_minimum_length_is_evidence_and_a_shorter_one_is_not():
    line, shorter = "weights = np.exp(scores)", "weight = np.exp(scores)"
    assert (len(line), len(shorter)) == (MIN_LEAK_LINE_CHARS, MIN_LEAK_LINE_CHARS - 1)
    assert code_lines(f"{line}\n{shorter}\n") == [line]


def test_forbidden_lines_say_where_each_line_comes_from():
    hidden = f"def test_rows_sum_to_one():\n    {HIDDEN_LINE}\n"
    reference = f"def attention(Q, K, d_k):\n    {REFERENCE_LINE}\n    return scores\n"
    assert forbidden_lines([MASTER], [hidden], [reference]) == {
        REFERENCE_LINE: "attn_reference",
        HIDDEN_LINE: "hidden tests",
        SOLUTION_LINE: "solution code",
    }


def test_a_leak_is_reported_with_its_file_and_one_based_line_number():
    forbidden = forbidden_lines([MASTER], [], [])
    release = {"stub.py": f"import numpy as np\n\ndef g(x):\n    {SOLUTION_LINE}\n", "data.npz": b"\x00"}
    assert find_leaks(release, forbidden) == [Leak("stub.py", 4, SOLUTION_LINE, "solution code")]


def test_notebook_cells_with_string_sources_missing_sources_or_no_cells():
    forbidden = forbidden_lines([MASTER], [], [])
    cells = [{"cell_type": "raw"}, {"cell_type": "code", "source": f"x = 1\n{SOLUTION_LINE}\n"}]
    notebook = json.dumps({"cells": cells})
    assert find_leaks({"n.ipynb": notebook}, forbidden) == [Leak("n.ipynb", 2, SOLUTION_LINE, "solution code")]
    assert _readable_lines("n.ipynb", json.dumps({"cells": cells[:1]})) == []
    assert find_leaks({"empty.ipynb": "{}"}, forbidden) == []


def write_project(root: Path) -> tuple[Path, Path, list[Path]]:
    """Hidden tests (one nested), reference modules (one of them the demo trace) and a master under ``root``."""
    hidden, reference = root / "hidden", root / "reference"
    (hidden / "hw1").mkdir(parents=True)
    reference.mkdir()
    (hidden / "hw1" / "test_softmax.py").write_text(f"def test_rows():\n    {HIDDEN_LINE}\n", encoding="utf-8")
    (reference / "attention.py").write_text(f"def attention(Q, K, d_k):  # √d_k\n    {REFERENCE_LINE}  # ÷ √d_k\n", encoding="utf-8")
    (reference / "trace.py").write_text("figure, axes = plt.subplots(1, 3, figsize=(9, 3))\n", encoding="utf-8")
    master = root / "master.py"
    master.write_text(MASTER, encoding="utf-8")
    return hidden, reference, [master]


def test_project_forbidden_lines_read_nested_hidden_tests_and_skip_the_demo_module(tmp_path):
    hidden, reference, masters = write_project(tmp_path)
    assert project_forbidden_lines(tmp_path, hidden, reference, masters) == {
        f"{REFERENCE_LINE}  # ÷ √d_k": "attn_reference",
        HIDDEN_LINE: "hidden tests",
        SOLUTION_LINE: "solution code",
    }


READ_IN_ASCII_LOCALE = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from autograder.build.leaks import project_forbidden_lines
    root = Path(sys.argv[1])
    lines = project_forbidden_lines(root, root / "hidden", root / "reference", [root / "master.py"])
    print(json.dumps(lines))
    """
)


def test_sources_are_read_as_utf8_in_an_ascii_locale(tmp_path):
    hidden, reference, masters = write_project(tmp_path)
    expected = project_forbidden_lines(tmp_path, hidden, reference, masters)
    ascii_locale = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0", "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run(
        [sys.executable, "-c", READ_IN_ASCII_LOCALE, str(tmp_path)],
        cwd=PROJECT, env=ascii_locale, capture_output=True, text=True, encoding="utf-8",
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected
