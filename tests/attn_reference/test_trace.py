"""The chapter's worked example: 3 tokens, X = eye(3, 4), identity projections."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_reference.trace import format_trace, main, worked_example, write_heatmap

DECIMALS = 4
PRINTED_DIAGONAL, PRINTED_OFF_DIAGONAL = 0.4519, 0.2741  # the chapter's printed weights
RTOL, ATOL = 1e-12, 1e-15
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# Q = K = V = X = eye(3, 4): Q K^T = I (3 x 3); divided by sqrt(d_k) = sqrt(4) = 2 every row of
# scaled scores is a permutation of [0.5, 0, 0], so softmax gives e^0.5 / (e^0.5 + 2) on the
# diagonal and 1 / (e^0.5 + 2) elsewhere.
DIAGONAL = math.exp(0.5) / (math.exp(0.5) + 2)
OFF_DIAGONAL = 1 / (math.exp(0.5) + 2)


def expected_weights() -> np.ndarray:
    weights = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            weights[i, j] = DIAGONAL if i == j else OFF_DIAGONAL
    return weights


@pytest.fixture(scope="module")
def example():
    return worked_example()


def test_derived_weights_round_to_the_chapters_numbers():
    assert round(DIAGONAL, DECIMALS) == PRINTED_DIAGONAL
    assert round(OFF_DIAGONAL, DECIMALS) == PRINTED_OFF_DIAGONAL
    assert math.isclose(DIAGONAL + 2 * OFF_DIAGONAL, 1.0, rel_tol=RTOL)


def test_inputs_and_projections_are_one_hot_tokens(example):
    expected_X = np.array([[1.0 if j == i else 0.0 for j in range(4)] for i in range(3)])  # (n, d_model)
    for name in ("X", "Q", "K", "V"):
        np.testing.assert_array_equal(getattr(example, name), expected_X, err_msg=name)


def test_raw_and_scaled_scores(example):
    np.testing.assert_array_equal(example.raw_scores, np.eye(3))  # q_i . k_j = [i == j]
    np.testing.assert_allclose(example.scaled_scores, np.eye(3) / math.sqrt(4), rtol=RTOL, atol=ATOL)


def test_weights_match_the_derivation_to_four_decimals(example):
    np.testing.assert_allclose(example.weights, expected_weights(), rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(np.round(example.weights, DECIMALS), np.round(expected_weights(), DECIMALS))
    assert round(float(example.weights[0, 0]), DECIMALS) == PRINTED_DIAGONAL
    assert round(float(example.weights[0, 1]), DECIMALS) == PRINTED_OFF_DIAGONAL


def test_context_vectors_are_the_weights_padded_with_a_zero_column(example):
    # Z = A V with V = eye(3, 4): z_i = sum_j a_ij e_j.
    expected_Z = np.hstack([expected_weights(), np.zeros((3, 1))])
    np.testing.assert_allclose(example.Z, expected_Z, rtol=RTOL, atol=ATOL)


def test_format_trace_contains_the_weights_to_four_decimals(example):
    text = format_trace(example)
    for derived, printed in ((DIAGONAL, PRINTED_DIAGONAL), (OFF_DIAGONAL, PRINTED_OFF_DIAGONAL)):
        assert f"{derived:.{DECIMALS}f}" == f"{printed:.{DECIMALS}f}"
        assert f"{derived:.{DECIMALS}f}" in text


def test_format_trace_details_the_chosen_query(example):
    text = format_trace(example, query=1)
    assert "query 1 ('love')" in text
    assert f"key 1 ('love'): weight = {DIAGONAL:.{DECIMALS}f} ({100 * DIAGONAL:.1f}%)" in text
    assert f"key 0 ('I'): weight = {OFF_DIAGONAL:.{DECIMALS}f} ({100 * OFF_DIAGONAL:.1f}%)" in text


def test_format_trace_names_every_step_and_token(example):
    text = format_trace(example)
    for step in range(6):
        assert f"STEP {step}" in text
    for token in ("'I'", "'love'", "'NN'"):
        assert token in text


def test_write_heatmap_writes_a_png(example, tmp_path):
    path = tmp_path / "heatmap.png"
    write_heatmap(example, path)
    data = path.read_bytes()
    assert len(data) > len(PNG_MAGIC)
    assert data.startswith(PNG_MAGIC)


def test_main_prints_the_trace_and_writes_the_heatmap(tmp_path, capsys):
    path = tmp_path / "out.png"
    assert main(["--heatmap", str(path)]) == 0
    printed = capsys.readouterr().out
    assert f"{PRINTED_DIAGONAL:.{DECIMALS}f}" in printed
    assert str(path) in printed
    assert path.read_bytes().startswith(PNG_MAGIC)


def test_the_trace_explains_the_0_39_and_0_30_some_texts_print():
    from attn_reference.trace import format_trace, worked_example

    wrong_diagonal = math.exp(0.25) / (math.exp(0.25) + 2)  # scores divided by d_k = 4
    wrong_other = 1 / (math.exp(0.25) + 2)
    text = format_trace(worked_example())
    assert f"{wrong_diagonal:.4f} / {wrong_other:.4f}" in text and "0.39 / 0.30" in text
    assert f"{wrong_diagonal:.2f}" == "0.39" and f"{wrong_other:.2f}" == "0.30"


def test_every_score_panel_of_the_heatmap_names_QK_transposed():
    from attn_reference.trace import HEATMAP_TITLES

    raw, scaled, weights = HEATMAP_TITLES
    assert "QK^T" in raw and "QK^T" in scaled and "sqrt{d_k}" in scaled and "softmax" in weights


def test_the_cli_prints_the_same_variance_table_as_the_notebook():
    import re

    from attn_reference.variance import DEFAULT_D_KS
    from autograder.paths import SOLUTIONS_DIR

    notebook = (SOLUTIONS_DIR / "hw1_scaled_attention" / "notebook.py").read_text(encoding="utf-8")
    listed = re.search(r"^D_KS = \[([^\]]*)\]", notebook, flags=re.MULTILINE).group(1)
    assert tuple(int(v) for v in listed.split(",")) == DEFAULT_D_KS
    from click.testing import CliRunner

    from autograder.cli import main

    printed = CliRunner().invoke(main, ["variance"]).output.splitlines()[1:]
    assert [int(line.split()[0]) for line in printed] == list(DEFAULT_D_KS)
