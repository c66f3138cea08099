"""The chapter's worked example, step by step: 3 tokens, d_model = 4, identity projections.

Run ``python -m attn_reference.trace [--heatmap PATH]``.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

import numpy as np

from attn_reference.softmax import softmax

#: The example's tokens and their one-hot embeddings ``eye(3, 4)``.
TOKENS = ("I", "love", "NN")
D_MODEL = 4
DECIMALS = 4
RULE = "=" * 65
#: Titles of the heatmap's three panels (matplotlib mathtext).
HEATMAP_TITLES = ("Raw scores  $QK^T$", "Scaled scores  $QK^T/\\sqrt{d_k}$", "Attention weights  softmax")


@dataclass(frozen=True)
class WorkedExample:
    """Every intermediate of the example, computed once."""

    X: np.ndarray
    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    raw_scores: np.ndarray
    scaled_scores: np.ndarray
    weights: np.ndarray
    Z: np.ndarray


def worked_example() -> WorkedExample:
    """Compute the example with ``W_Q = W_K = W_V = I`` so that ``Q = K = V = X``."""
    X = np.eye(len(TOKENS), D_MODEL)  # (n, d_model)
    identity = np.eye(D_MODEL)
    Q, K, V = X @ identity, X @ identity, X @ identity  # (n, d_k) each
    raw = Q @ K.T  # (n, n)
    scaled = raw / math.sqrt(K.shape[-1])  # (n, n)
    weights = softmax(scaled, axis=-1)  # (n, n)
    return WorkedExample(X, Q, K, V, raw, scaled, weights, weights @ V)


def misscaled_note(example: WorkedExample) -> str:
    """Why some texts print 0.39 / 0.30 for this example: they divide by d_k, not sqrt(d_k)."""
    d_k = example.K.shape[-1]
    wrong = softmax(example.raw_scores / d_k, axis=-1)  # (n, n): the scores divided by d_k
    right = example.weights
    return (
        f"NOTE: dividing by d_k = {d_k} instead of sqrt(d_k) = {math.sqrt(d_k):g} would give "
        f"{wrong[0, 0]:.{DECIMALS}f} / {wrong[0, 1]:.{DECIMALS}f} (the 0.39 / 0.30 some texts print); "
        f"the scale is sqrt(d_k), which gives {right[0, 0]:.{DECIMALS}f} / {right[0, 1]:.{DECIMALS}f}."
    )


def _heading(title: str) -> list[str]:
    return [RULE, title, RULE]


def _matrix(array: np.ndarray) -> str:
    return np.array2string(np.round(array, DECIMALS), precision=DECIMALS, suppress_small=True)


def format_trace(example: WorkedExample, query: int = 0) -> str:
    """Render the step-by-step trace as text."""
    lines = _heading(f"STEP 0: Input embeddings ({len(TOKENS)} tokens, d_model={D_MODEL})")
    lines += [f"X shape: {example.X.shape}"]
    lines += [f"  Token {i} ({tok!r}): {example.X[i]}" for i, tok in enumerate(TOKENS)]
    lines += _heading("STEP 1: Linear projections Q, K, V (W_Q = W_K = W_V = I)")
    for name in ("Q", "K", "V"):
        lines += [f"{name} {getattr(example, name).shape}:", _matrix(getattr(example, name))]
    lines += _heading("STEP 2: Raw scores S = Q K^T")
    lines += [_matrix(example.raw_scores)]
    lines += _heading(f"STEP 3: Scaled scores S / sqrt(d_k) = S / {math.sqrt(D_MODEL):g}")
    lines += [_matrix(example.scaled_scores)]
    lines += _heading("STEP 4: Attention weights A = softmax(S_scaled, axis=-1)")
    lines += ["(row = query, column = key)", _matrix(example.weights)]
    lines += ["Row sums (each should be 1):", _matrix(example.weights.sum(axis=-1))]
    lines += [misscaled_note(example)]
    lines += _heading(f"DETAILED TRACE: query {query} ({TOKENS[query]!r})")
    for j, tok in enumerate(TOKENS):
        w = example.weights[query, j]
        lines += [f"  -> key {j} ({tok!r}): weight = {w:.{DECIMALS}f} ({100 * w:.1f}%)"]
    terms = [f"{example.weights[query, j]:.{DECIMALS}f} x {example.V[j]}" for j in range(len(TOKENS))]
    lines += [f"  Z[{query}] = sum_j A[{query}, j] * V[j]", "    = " + " +\n      ".join(terms)]
    lines += [f"    = {_matrix(example.Z[query])}"]
    lines += _heading("STEP 5: Context vectors Z = A V")
    lines += [_matrix(example.Z)]
    return "\n".join(lines)


def write_heatmap(example: WorkedExample, path) -> None:
    """Save the three panels (raw scores, scaled scores, weights) as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = tuple(zip(HEATMAP_TITLES, (example.raw_scores, example.scaled_scores, example.weights)))
    fig, axes = plt.subplots(1, len(panels), figsize=(13, 4))
    for ax, (title, values) in zip(axes, panels):
        image = ax.imshow(values, cmap="viridis")
        ax.set_title(title)
        ax.set_xticks(range(len(TOKENS)), TOKENS)
        ax.set_yticks(range(len(TOKENS)), TOKENS)
        ax.set_xlabel("key")
        ax.set_ylabel("query")
        middle = (values.min() + values.max()) / 2
        for (i, j), value in np.ndenumerate(values):
            colour = "black" if value > middle else "white"  # readable on both ends of viridis
            ax.text(j, i, f"{value:.{DECIMALS}f}", ha="center", va="center", color=colour)
        fig.colorbar(image, ax=ax, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heatmap", metavar="PNG", help="also write the three-panel heatmap here")
    args = parser.parse_args(argv)
    example = worked_example()
    print(format_trace(example))
    if args.heatmap:
        write_heatmap(example, args.heatmap)
        print(f"\nheatmap written to {args.heatmap}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
