"""Which submissions of a class are suspiciously alike, per graded function, and where.

Each submission's graded functions are fingerprinted (:mod:`autograder.similarity.winnow`
over :mod:`autograder.similarity.tokens`). Left out of every fingerprint: the hashes of the
release's own stub (the starter code every student got) and the hashes more than
:data:`COMMON_SHARE` of the class shares (what everyone writes; in a class of at least
:data:`COMMON_MIN_CLASS`). Two submissions' similarity is the share of the smaller
fingerprint they share, over the functions both wrote; a pair is flagged from
:data:`THRESHOLD` and :data:`MIN_SHARED` shared hashes on (tiny functions alike say nothing).
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass

from autograder.similarity.tokens import function_tokens, parse
from autograder.similarity.winnow import Fingerprint, fingerprint

#: Flag a pair from this similarity on (tuned on benchmarks/similarity.py's corpus).
THRESHOLD = 0.75
#: ... when it shares at least this many hashes.
MIN_SHARED = 8
#: A hash more than this share of the class has is common code, not evidence ...
COMMON_SHARE = 0.5
#: ... in a class of at least this many submissions.
COMMON_MIN_CLASS = 6


@dataclass(frozen=True)
class FunctionMatch:
    """How alike two submissions' versions of one function are, and the line ranges that match on each side."""

    function: str
    similarity: float
    shared: int
    lines_a: tuple[tuple[int, int], ...]
    lines_b: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class SimilarPair:
    """Two submissions (``a`` < ``b``), their similarity over all functions, and each function's match."""

    a: str
    b: str
    similarity: float
    shared: int
    functions: tuple[FunctionMatch, ...]


def _merged(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return tuple((start, end) for start, end in merged)


def class_fingerprints(sources: dict[str, str], functions, stub: str | None = None,
                       common_share: float | None = COMMON_SHARE) -> dict[str, dict[str, Fingerprint]]:
    """``{student: {function: fingerprint}}``, the stub's and the class's common hashes left out (see the module).

    ``common_share`` None keeps the common hashes (for the benchmark's comparison).
    """
    def prints(source: str) -> dict[str, Fingerprint]:
        tree = parse(source)
        return {f: fingerprint(function_tokens(tree, f)) for f in functions} if tree is not None else {}

    starter = prints(stub) if stub else {}
    found = {student: prints(source) for student, source in sources.items()}
    counts = Counter(h for per in found.values() for f, fp in per.items() for h in {(f, x) for x in fp.hashes})
    common = {key for key, n in counts.items()
              if common_share is not None and len(found) >= COMMON_MIN_CLASS and n > common_share * len(found)}
    for per in found.values():
        for f, fp in per.items():
            skip = set(starter[f].hashes) if f in starter else set()
            per[f] = Fingerprint({h: lines for h, lines in fp.hashes.items() if h not in skip and (f, h) not in common})
    return found


def compare(a: dict[str, Fingerprint], b: dict[str, Fingerprint], functions) -> tuple[float, int, tuple[FunctionMatch, ...]]:
    """(similarity, shared hashes, per-function matches) of two submissions' fingerprints."""
    matches, shared_all, smaller_all = [], 0, 0
    for function in functions:
        fa, fb = a.get(function), b.get(function)
        if not fa or not fb:
            continue
        shared = set(fa.hashes) & set(fb.hashes)
        smaller = min(len(fa), len(fb))
        shared_all, smaller_all = shared_all + len(shared), smaller_all + smaller
        if shared:
            matches.append(FunctionMatch(function, len(shared) / smaller, len(shared),
                                         _merged([fa.hashes[h] for h in shared]), _merged([fb.hashes[h] for h in shared])))
    return (shared_all / smaller_all if smaller_all else 0.0), shared_all, tuple(matches)


def similar_pairs(sources: dict[str, str], functions, stub: str | None = None, *, threshold: float = THRESHOLD,
                  min_shared: int = MIN_SHARED, common_share: float | None = COMMON_SHARE) -> list[SimilarPair]:
    """The flagged pairs of the class, most similar first.

    Parameters
    ----------
    sources : dict
        ``{student: module source}`` (a submission that does not parse has no functions: never flagged).
    functions : sequence of str
        The graded functions.
    stub : str, optional
        The release's stub module: its code is every student's, never evidence.
    """
    prints = class_fingerprints(sources, functions, stub, common_share)
    pairs = []
    for a, b in itertools.combinations(sorted(prints), 2):
        similarity, shared, matches = compare(prints[a], prints[b], functions)
        if similarity >= threshold and shared >= min_shared:
            pairs.append(SimilarPair(a, b, round(similarity, 3), shared, matches))
    return sorted(pairs, key=lambda p: (-p.similarity, p.a, p.b))
