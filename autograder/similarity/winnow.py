"""Winnowing (Schleimer, Wilkerson and Aiken, SIGMOD 2003), as MOSS uses it.

Every run of ``k`` consecutive tokens is hashed; of every window of ``w`` consecutive hashes
the smallest is kept (the rightmost when tied), once. Two texts that share a run of at least
``w + k - 1`` tokens then share a kept hash, and a run shorter than ``k`` is never a match.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from autograder.similarity.tokens import Token

#: Tokens per hashed run and hashes per window (tuned on benchmarks/similarity.py's corpus).
K, WINDOW = 6, 4


@dataclass(frozen=True)
class Fingerprint:
    """The kept hashes of one token stream, each with the source lines of the run it stands for."""

    hashes: dict[int, tuple[int, int]]  # hash -> (first line, last line) of its first occurrence

    def __len__(self) -> int:
        return len(self.hashes)


def _hash(texts: list[str]) -> int:
    return int.from_bytes(hashlib.blake2b("\x1f".join(texts).encode(), digest_size=8).digest(), "big")


def fingerprint(tokens: list[Token], k: int = K, window: int = WINDOW) -> Fingerprint:
    """The winnowed fingerprint of ``tokens`` (empty when there are fewer than ``k``)."""
    texts = [t.text for t in tokens]
    grams = [(_hash(texts[i:i + k]), i) for i in range(len(tokens) - k + 1)]
    kept: dict[int, tuple[int, int]] = {}
    last = None
    for start in range(max(1, len(grams) - window + 1) if grams else 0):
        chosen = min(grams[start:start + window], key=lambda g: (g[0], -g[1]))
        if chosen != last:
            value, at = chosen
            lines = [t.line for t in tokens[at:at + k]]
            kept.setdefault(value, (min(lines), max(lines)))
            last = chosen
    return Fingerprint(kept)
