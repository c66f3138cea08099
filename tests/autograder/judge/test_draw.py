"""Draw: per-test random inputs, seeded from the run's seed and the test's id."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from autograder.judge.draw import ALLOW_PROBABILITY, BATCH_SIZES, KEPT_PER_ROW, MAX_SEED, SIZES, Draw, seed_of_test
from autograder.inputs import RngSeed

RUN_SEED = 20270308
TEST_ID = "hidden_tests/hw1/test_softmax.py::test_axis_argument"
#: Enough draws that a property holding by luck alone would be noticed.
REPEATS = 200


def draws(count: int = REPEATS):
    return (Draw(RUN_SEED, f"{TEST_ID}[{i}]") for i in range(count))


# ---------------------------------------------------------------------------------------
# sizes and size


def test_sizes_are_distinct_members_of_the_pool():
    for draw in draws():
        sizes = draw.sizes(4)
        assert len(set(sizes)) == 4
        assert set(sizes) <= set(SIZES)
        assert all(type(n) is int for n in sizes)


def test_sizes_avoid_the_given_values():
    for draw in draws():
        assert not set(draw.sizes(5, avoid=(2, 3, 5))) & {2, 3, 5}


def test_sizes_take_the_next_larger_values_when_the_pool_runs_out():
    for draw in draws(20):
        assert sorted(draw.sizes(4, (2, 3), avoid=(3,))) == [2, 5, 6, 7]  # not 4: the square of 2


def test_extended_sizes_skip_avoided_values_too():
    for draw in draws(20):
        assert sorted(draw.sizes(3, (2, 3), avoid=(2, 4))) == [3, 5, 6]


def test_sizes_come_in_random_order_and_cover_the_pool():
    seen_first, seen = set(), set()
    for draw in draws():
        sizes = draw.sizes(2, (2, 3, 5))
        seen_first.add(sizes[0])
        seen |= set(sizes)
    assert seen_first == seen == {2, 3, 5}


def test_size_is_one_value_from_the_pool_not_avoided():
    for draw in draws():
        assert draw.size((4, 6, 8), avoid=(6,)) in (4, 8)
    assert Draw(RUN_SEED, TEST_ID).size((4,), avoid=(4,)) == 5


def test_no_size_is_ever_1():
    assert 1 not in SIZES and 1 not in BATCH_SIZES


# ---------------------------------------------------------------------------------------
# batch


def test_batch_of_a_given_number_of_axes():
    for draw in draws():
        batch = draw.batch(2)
        assert len(batch) == 2 and len(set(batch)) == 2 and set(batch) <= set(BATCH_SIZES)
    assert Draw(RUN_SEED, TEST_ID).batch(0) == ()


def test_batch_without_a_number_of_axes_has_one_or_two():
    assert {len(draw.batch()) for draw in draws()} == {1, 2}


def test_batch_sizes_avoid_the_given_values():
    for draw in draws():
        assert set(draw.batch(2, avoid=(3,))) in ({2, 5}, {4, 5})  # never 2 with 4, its square


# ---------------------------------------------------------------------------------------
# normal, mask, padding_mask, seed, choice


def test_sizes_differ_from_every_size_handed_out_before():
    for draw in draws():
        handed_out = [*draw.sizes(3), *draw.batch(2)]
        assert len(set(handed_out)) == len(handed_out)
        draw.take(100)  # a size the test derived itself
        later = draw.sizes(3, (2, 3, 5, 6, 100))
        assert not set(later) & {*handed_out, 100}


def test_no_size_is_the_square_of_another():
    for draw in draws():
        handed_out = [*draw.sizes(4), *draw.sizes(3, (2, 3, 4, 9)), *draw.batch(2)]
        assert not {n * n for n in handed_out} & set(handed_out)


def test_normal_has_the_shape_dtype_and_scale_asked_for():
    draw = Draw(RUN_SEED, TEST_ID)
    x = draw.normal((400, 50), scale=3.0, dtype=np.float32)
    assert x.shape == (400, 50) and x.dtype == np.float32
    assert x.std() == pytest.approx(3.0, rel=0.05)
    assert abs(float(x.mean())) < 0.1


@pytest.mark.parametrize("shape", [(7,), (5, 6), (3, 4, 2), (2, 3, 4, 9)])
def test_every_mask_row_allows_at_least_one_key(shape):
    for draw in draws(50):
        mask = draw.mask(shape)
        assert mask.shape == shape and mask.dtype == bool
        assert mask.any(axis=-1).all()
        if shape[-1] > KEPT_PER_ROW:
            assert (~mask).any(axis=-1).all()  # a long enough row blocks at least one key
            assert (mask.sum(axis=-1) >= KEPT_PER_ROW).all()  # and allows two


@pytest.mark.parametrize("shape", [(2,), (1, 2), (2, 3), (3, 2, 2)])
def test_a_mask_without_blocks_still_blocks_some_key_and_keeps_one_per_row(shape):
    for draw in draws(1000 // 4):  # small shapes, where every entry is allowed by chance most often
        mask = draw.mask(shape, blocks=False)
        assert (~mask).any() and mask.any(axis=-1).all()


def test_mask_rows_of_one_key_always_allow_it():
    for draw in draws(50):
        assert draw.mask((6, 1)).all()


def test_mask_allows_about_the_documented_share_of_entries():
    mask = Draw(RUN_SEED, TEST_ID).mask((200, 50))
    # KEPT_PER_ROW keys per row kept, another blocked, the others allowed with ALLOW_PROBABILITY
    others = 50 - KEPT_PER_ROW - 1
    assert mask.mean() == pytest.approx((others * ALLOW_PROBABILITY + KEPT_PER_ROW) / 50, abs=0.03)
    assert not mask.all()


def test_mask_in_another_dtype_holds_0_and_1():
    mask = Draw(RUN_SEED, TEST_ID).mask((5, 6), dtype=np.int64)
    assert mask.dtype == np.int64 and set(np.unique(mask)) <= {0, 1}
    assert (mask.sum(axis=-1) >= 1).all()


@pytest.mark.parametrize("batch", [(), (3,), (2, 4)])
def test_padding_mask_keeps_a_nonempty_prefix_of_each_sequence(batch):
    for draw in draws(50):
        mask = draw.padding_mask(batch, 6)
        assert mask.shape == batch + (6,) and mask.dtype == bool
        for row in mask.reshape(-1, 6):
            kept = int(row.sum())
            assert KEPT_PER_ROW <= kept < 6  # at least two positions kept and one padded
            assert row.tolist() == [True] * kept + [False] * (6 - kept)


def test_padding_masks_vary_in_length():
    lengths = {int(draw.padding_mask((), 5).sum()) for draw in draws()}
    assert lengths == set(range(KEPT_PER_ROW, 5))  # never 5: every sequence has padding


def test_padding_mask_in_another_dtype():
    mask = Draw(RUN_SEED, TEST_ID).padding_mask((2,), 4, dtype=np.float64)
    assert mask.dtype == np.float64 and set(np.unique(mask)) <= {0.0, 1.0}


def test_seed_is_an_rng_seed_in_range():
    for draw in draws(50):
        seed = draw.seed()
        assert isinstance(seed, RngSeed) and 0 <= seed.seed < MAX_SEED


def test_choice_picks_every_option_sometimes():
    options = ("a", "b", "c")
    assert {draw.choice(options) for draw in draws()} == set(options)


# ---------------------------------------------------------------------------------------
# reproducibility


def sequence(draw: Draw) -> list:
    """Every helper once, in a fixed order."""
    return [draw.sizes(3), draw.batch(), draw.normal((2, 3)).tolist(), draw.mask((3, 4)).tolist(),
            draw.padding_mask((2,), 5).tolist(), draw.seed(), draw.choice((0, 1, -2, -3))]


def test_the_same_run_seed_and_test_id_give_the_same_draws():
    assert sequence(Draw(RUN_SEED, TEST_ID)) == sequence(Draw(RUN_SEED, TEST_ID))


def test_another_run_seed_gives_other_draws():
    assert sequence(Draw(RUN_SEED, TEST_ID)) != sequence(Draw(RUN_SEED + 1, TEST_ID))


def test_another_test_id_gives_other_draws():
    assert sequence(Draw(RUN_SEED, TEST_ID)) != sequence(Draw(RUN_SEED, TEST_ID + "x"))


def test_the_generator_is_seeded_from_the_run_seed_and_a_checksum_of_the_test_id():
    expected = np.random.default_rng(np.random.SeedSequence([RUN_SEED, zlib.crc32(TEST_ID.encode("utf-8"))]))
    assert Draw(RUN_SEED, TEST_ID).rng.random(5).tolist() == expected.random(5).tolist()
    assert seed_of_test(RUN_SEED, TEST_ID).entropy == [RUN_SEED, zlib.crc32(TEST_ID.encode("utf-8"))]
