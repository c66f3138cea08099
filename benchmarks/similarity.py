"""Precision and recall of the similarity check on the planted corpus, ours against copydetect's.

Run: ``.venv/bin/python benchmarks/similarity.py [--seeds 5]``

For each seed, :func:`similarity_corpus.build_corpus` plants copies (as is, renamed,
reordered, disguised, partial) among honest students who share the stub's starter code;
a flagged pair is right when it is a planted copy. Printed per method: precision and
recall summed over the seeds, and the recall per kind of plant. Methods:

- ``ours``: :func:`autograder.similarity.compare.similar_pairs` (winnowed syntax-tree tokens
  per graded function, the stub's hashes and the class's common hashes left out);
- ``ours, stub kept``: the same without the stub (what shared starter code costs);
- ``copydetect``: copydetect's own fingerprints of each file (k=25 characters of its
  normalised token text, window 1, its default), the stub as boilerplate, flagged from its
  default display threshold (0.33) on either side; ``copydetect, stub kept`` without it.
  Left out, with a note, when copydetect is not installed (``pip install copydetect``).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from similarity_corpus import FUNCTIONS, build_corpus  # noqa: E402

from autograder.similarity.compare import COMMON_SHARE, MIN_SHARED, THRESHOLD, similar_pairs  # noqa: E402

#: copydetect's defaults (its CLI: noise threshold 25, guarantee threshold 1, display threshold 0.33).
COPYDETECT_K, COPYDETECT_WINDOW, COPYDETECT_THRESHOLD = 25, 1, 0.33


def ours(corpus, keep_stub: bool = False, common: bool = True) -> dict[tuple[str, str], float]:
    """Every pair's similarity (0 below MIN_SHARED shared hashes) by our check."""
    pairs = similar_pairs(corpus.sources, FUNCTIONS, None if keep_stub else corpus.stub, threshold=0.0,
                          min_shared=MIN_SHARED, common_share=COMMON_SHARE if common else None)
    return {(p.a, p.b): p.similarity for p in pairs}


def copydetect_pairs(corpus, keep_stub: bool = False) -> dict[tuple[str, str], float]:
    """Every pair's similarity by copydetect (the larger of its two sides' shares, as its report ranks them)."""
    from copydetect import CodeFingerprint, compare_files

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / "stub.py").write_text(corpus.stub, encoding="utf-8")
        stub_hashes = CodeFingerprint(str(folder / "stub.py"), COPYDETECT_K, COPYDETECT_WINDOW).hashes
        boilerplate = np.array([] if keep_stub else sorted(stub_hashes))
        prints = {}
        for student, source in corpus.sources.items():
            (folder / f"{student}.py").write_text(source, encoding="utf-8")
            prints[student] = CodeFingerprint(str(folder / f"{student}.py"), COPYDETECT_K, COPYDETECT_WINDOW,
                                              boilerplate=boilerplate)
        return {(a, b): float(max(compare_files(prints[a], prints[b])[1]))
                for a, b in itertools.combinations(sorted(prints), 2)}


def score(flagged: set, corpus) -> tuple[int, int, int, dict[str, tuple[int, int]]]:
    """(true positives, flagged, copies, {kind: (found, planted)}) of one corpus."""
    kinds: dict[str, list[int]] = {}
    for pair in corpus.copies:
        kind = "two copiers" if pair[0] in corpus.kinds and pair[1] in corpus.kinds else \
            corpus.kinds.get(pair[0]) or corpus.kinds.get(pair[1])
        found = kinds.setdefault(kind, [0, 0])
        found[0] += pair in flagged
        found[1] += 1
    return len(flagged & corpus.copies), len(flagged), len(corpus.copies), {k: tuple(v) for k, v in kinds.items()}


def measure(scored: list[dict], corpora, threshold: float) -> tuple[float, float, str]:
    """(precision, recall, recall per kind) of flagging every pair from ``threshold`` on, over the corpora."""
    hits = flagged = copies = 0
    per_kind: dict[str, list[int]] = {}
    for pairs, corpus in zip(scored, corpora):
        tp, n, c, kinds = score({pair for pair, value in pairs.items() if value >= threshold}, corpus)
        hits, flagged, copies = hits + tp, flagged + n, copies + c
        for kind, (found, planted) in kinds.items():
            total = per_kind.setdefault(kind, [0, 0])
            total[0], total[1] = total[0] + found, total[1] + planted
    kinds_text = ", ".join(f"{k} {f}/{p}" for k, (f, p) in sorted(per_kind.items()))
    return (hits / flagged if flagged else 1.0), hits / copies, kinds_text


def best_threshold(scored: list[dict], corpora) -> float:
    """The threshold of the best F1 over the corpora (what a method can do at its best setting)."""
    def f1(threshold):
        precision, recall, _ = measure(scored, corpora, threshold)
        return 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return max((t / 100 for t in range(5, 100, 5)), key=f1)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="Corpora to build (seeds 26, 27, ...).")
    args = parser.parse_args(argv)
    methods = {"ours": (ours, THRESHOLD), "ours, stub kept": (lambda c: ours(c, keep_stub=True), THRESHOLD),
               "ours, stub and common kept": (lambda c: ours(c, keep_stub=True, common=False), THRESHOLD)}
    try:
        import copydetect  # noqa: F401

        methods["copydetect"] = (copydetect_pairs, COPYDETECT_THRESHOLD)
        methods["copydetect, stub kept"] = (lambda c: copydetect_pairs(c, keep_stub=True), COPYDETECT_THRESHOLD)
    except ImportError:
        print("copydetect is not installed (pip install copydetect): only ours is measured")
    corpora = [build_corpus(seed) for seed in range(26, 26 + args.seeds)]
    print(f"{len(corpora)} corpora of {len(corpora[0].sources)} submissions, {sum(len(c.copies) for c in corpora)} copied pairs")
    for name, (method, default) in methods.items():
        scored = [method(corpus) for corpus in corpora]
        best = best_threshold(scored, corpora)
        for label, threshold in ((f"{name} (default {default:g})", default), (f"{name} (best {best:g})", best)):
            precision, recall, kinds = measure(scored, corpora, threshold)
            print(f"{label:42s} precision {precision:.2f}  recall {recall:.2f}  [{kinds}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
