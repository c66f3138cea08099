"""Fresh hidden inputs for every grading run, reproducible from the run's seed.

Each hidden test receives a :class:`Draw`: a random generator seeded from the run's seed
and the test's own id, so a test draws the same inputs whatever else runs, a new run
draws new inputs, and the instructor replays a run exactly from the seed kept in the
result. The helpers draw what the suites need to tell bugs apart: sizes that are all
different from each other (so a scale by the wrong dimension, or a transpose of the
wrong axes, cannot coincide with the right one), batch shapes of zero to two axes, and
masks that leave every query at least one key.
"""

from __future__ import annotations

import zlib

import numpy as np

from autograder.inputs import RngSeed

#: Sizes a dimension is drawn from: never only 4, never 1 (a size of 1 hides broadcasting bugs).
SIZES = (2, 3, 5, 6, 7, 8, 9, 11, 12)
#: Batch sizes (kept small: suites run many calls).
BATCH_SIZES = (2, 3, 4)
#: Head counts for multi-head attention, and the head sizes d_model is made from.
HEAD_COUNTS = (2, 3, 4)
HEAD_SIZES = (2, 3, 5)
#: Largest seed handed to a function that takes a generator.
MAX_SEED = 2**31 - 1
#: Probability that a mask entry allows attention.
ALLOW_PROBABILITY = 0.6


def seed_of_test(run_seed: int, test_id: str) -> np.random.SeedSequence:
    """The seed sequence of one test in one run: the run's seed and a checksum of the test's id."""
    return np.random.SeedSequence([int(run_seed), zlib.crc32(test_id.encode("utf-8"))])


class Draw:
    """A test's source of random inputs.

    Parameters
    ----------
    run_seed : int
        The grading run's seed.
    test_id : str
        The test's node id (parameters included).
    """

    def __init__(self, run_seed: int, test_id: str):
        self.rng = np.random.default_rng(seed_of_test(run_seed, test_id))

    def sizes(self, count: int, pool: tuple[int, ...] = SIZES, *, avoid: tuple[int, ...] = ()) -> tuple[int, ...]:
        """``count`` different sizes from ``pool`` and none in ``avoid``, in random order.

        When ``pool`` has too few sizes left, the next larger ones are added.
        """
        candidates = [n for n in pool if n not in avoid]
        extra = max(pool) + 1
        while len(candidates) < count:
            if extra not in avoid:
                candidates.append(extra)
            extra += 1
        return tuple(int(n) for n in self.rng.choice(candidates, size=count, replace=False))

    def size(self, pool: tuple[int, ...] = SIZES, *, avoid: tuple[int, ...] = ()) -> int:
        """One size from ``pool`` that is not in ``avoid`` (a larger one when none is left)."""
        return self.sizes(1, pool, avoid=avoid)[0]

    def batch(self, ndim: int | None = None, *, avoid: tuple[int, ...] = ()) -> tuple[int, ...]:
        """A batch shape of ``ndim`` axes (1 or 2 when not given), sizes different from ``avoid`` and each other."""
        if ndim is None:
            ndim = int(self.rng.integers(1, 3))
        return self.sizes(ndim, BATCH_SIZES, avoid=avoid)

    def normal(self, shape: tuple[int, ...], scale: float = 1.0, dtype=np.float64) -> np.ndarray:
        """Standard normal entries times ``scale``, as ``dtype``."""
        return (scale * self.rng.standard_normal(shape)).astype(dtype)

    def mask(self, shape: tuple[int, ...], dtype=bool) -> np.ndarray:
        """A random mask of ``shape`` (..., L_q, L_k) in which every row allows at least one key."""
        allowed = self.rng.random(shape) < ALLOW_PROBABILITY  # (..., L_q, L_k)
        keep = self.rng.integers(0, shape[-1], size=shape[:-1])  # (..., L_q): one key kept per row
        np.put_along_axis(allowed, keep[..., None], True, axis=-1)
        return allowed.astype(dtype)

    def padding_mask(self, batch: tuple[int, ...], length: int, dtype=bool) -> np.ndarray:
        """A (..., length) mask: each sequence keeps a random prefix of at least one position."""
        lengths = self.rng.integers(1, length + 1, size=batch)  # (...,)
        return (np.arange(length) < lengths[..., None]).astype(dtype)  # (..., length)

    def seed(self) -> RngSeed:
        """A seed for a function that takes ``rng``: the worker and the grader build the same generator."""
        return RngSeed(int(self.rng.integers(0, MAX_SEED)))

    def choice(self, options):
        """One of ``options``."""
        return options[int(self.rng.integers(0, len(options)))]
