"""Fresh hidden inputs for every grading run, reproducible from the run's seed.

Each hidden test receives a :class:`Draw`: a random generator seeded from the run's seed
and the test's own id, so a test draws the same inputs whatever else runs, a new run
draws new inputs, and the instructor replays a run exactly from the seed kept in the
result. The helpers draw what the suites need to tell bugs apart: sizes that are all
different from each other (so a scale by the wrong dimension, or a transpose of the
wrong axes, cannot coincide with the right one), batch shapes of zero to two axes, and
masks that leave every query at least one key and block at least one.

Distinct sizes hold by construction: every size a :class:`Draw` hands out (sizes, batch
axes) differs from every size it handed out before in the same test, and a size the test
derives itself (``d_model = heads * d_head``) is registered with :meth:`Draw.take` so that
later draws avoid it too. What each test's draws promise is checked as code by
:mod:`autograder.judge.claims` over many seeds (tests/hidden_tests/test_draw_claims.py).
"""

from __future__ import annotations

import math
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
#: Keys a mask row allows at least (when it has more than this many keys).
KEPT_PER_ROW = 2
#: Key counts a test that blocks keys draws from: a row of KEPT_PER_ROW keys could not block one.
MASKABLE_SIZES = tuple(n for n in SIZES if n > KEPT_PER_ROW)


def _square_related(n: int) -> tuple[int, ...]:
    """``n``'s square, and its square root when it is a perfect square."""
    root = math.isqrt(n)
    return (n * n, root) if root * root == n else (n * n,)


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
        self.taken: list[int] = []  # every size handed out (or registered) so far: later ones differ

    def take(self, *sizes: int) -> None:
        """Register sizes the test derives itself (e.g. ``d_model``): later draws avoid them."""
        self.taken += [int(n) for n in sizes]

    def sizes(self, count: int, pool: tuple[int, ...] = SIZES, *, avoid: tuple[int, ...] = ()) -> tuple[int, ...]:
        """``count`` different sizes from ``pool``, none in ``avoid`` nor handed out before, in random order.

        Nor is any the square or the square root of another (a scale by ``sqrt(9)`` would
        equal a scale by 3), unless the pool leaves no other choice. When ``pool`` has too
        few sizes left, the next larger ones are added.
        """
        avoid = {*avoid, *self.taken, *(m for n in self.taken for m in _square_related(n))}
        candidates = [n for n in pool if n not in avoid]
        extra, chosen = max(pool) + 1, []
        while len(chosen) < count:  # one at a time, so no two are squares of each other
            related = {m for n in chosen for m in _square_related(n)}
            left = [n for n in candidates if n not in chosen and n not in related]
            if not left:  # the pool has run out: the next larger size that fits
                while extra in avoid or extra in related:
                    extra += 1
                candidates.append(extra)
                extra += 1
                continue
            chosen.append(int(self.rng.choice(left)))
        self.take(*chosen)
        return tuple(chosen)

    def size(self, pool: tuple[int, ...] = SIZES, *, avoid: tuple[int, ...] = ()) -> int:
        """One size from ``pool`` that is not in ``avoid`` (a larger one when none is left)."""
        return self.sizes(1, pool, avoid=avoid)[0]

    def batch(self, ndim: int | None = None, *, avoid: tuple[int, ...] = ()) -> tuple[int, ...]:
        """A batch shape of ``ndim`` axes (1 or 2 when not given), sizes different from ``avoid`` and each other."""
        if ndim is None:
            ndim = int(self.rng.integers(1, 3))
        return self.sizes(ndim, BATCH_SIZES, avoid=avoid) if ndim else ()

    def normal(self, shape: tuple[int, ...], scale: float = 1.0, dtype=np.float64) -> np.ndarray:
        """Standard normal entries times ``scale``, as ``dtype``."""
        return (scale * self.rng.standard_normal(shape)).astype(dtype)

    def mask(self, shape: tuple[int, ...], dtype=bool, *, blocks: bool = True) -> np.ndarray:
        """A random mask of ``shape`` (..., L_q, L_k): every row allows at least one key.

        With ``blocks``, a row of more than KEPT_PER_ROW keys allows at least KEPT_PER_ROW
        (one allowed key has weight 1 whatever the scores, so it could not tell a wrong scale)
        and blocks at least one; a shorter row allows one key at least and blocks none for
        sure (draw L_k from MASKABLE_SIZES to block keys). Without, each entry allows with
        ALLOW_PROBABILITY, one key per row is kept, and some key of some row is blocked (when rows have two keys).
        """
        allowed = self.rng.random(shape) < ALLOW_PROBABILITY  # (..., L_q, L_k)
        if not blocks:
            keep = self.rng.integers(0, shape[-1], size=shape[:-1])  # (..., L_q): one key kept per row
            np.put_along_axis(allowed, keep[..., None], True, axis=-1)
            if allowed.all() and shape[-1] > 1:  # a mask that blocks nothing tests nothing: block one key of one row
                row = tuple(int(self.rng.integers(n)) for n in shape[:-1])
                others = [j for j in range(shape[-1]) if j != keep[row]]
                allowed[row + (int(self.rng.choice(others)),)] = False
            return allowed.astype(dtype)
        order = np.argsort(self.rng.random(shape), axis=-1)  # (..., L_q, L_k): each row's keys in a random order
        kept = KEPT_PER_ROW if shape[-1] > KEPT_PER_ROW else 1
        if shape[-1] > KEPT_PER_ROW:
            np.put_along_axis(allowed, order[..., kept:kept + 1], False, axis=-1)  # one key blocked per row
        np.put_along_axis(allowed, order[..., :kept], True, axis=-1)  # ``kept`` keys allowed per row
        return allowed.astype(dtype)

    def padding_mask(self, batch: tuple[int, ...], length: int, dtype=bool) -> np.ndarray:
        """A (..., length) mask: each sequence keeps a random prefix of at least one position and pads the rest.

        When ``length`` > KEPT_PER_ROW, every sequence keeps at least KEPT_PER_ROW positions and
        pads at least one (as :meth:`mask`); a shorter one keeps 1 to ``length``.
        """
        if length > KEPT_PER_ROW:
            lengths = self.rng.integers(KEPT_PER_ROW, length, size=batch)  # (...,): KEPT_PER_ROW .. length - 1
        else:
            lengths = self.rng.integers(1, length + 1, size=batch)  # (...,)
        return (np.arange(length) < lengths[..., None]).astype(dtype)  # (..., length)

    def seed(self) -> RngSeed:
        """A seed for a function that takes ``rng``: the worker and the grader build the same generator."""
        return RngSeed(int(self.rng.integers(0, MAX_SEED)))

    def choice(self, options):
        """One of ``options``."""
        return options[int(self.rng.integers(0, len(options)))]
