"""Inputs that cannot travel as arrays: generators from seeds, and the private copies trusted code runs on."""

from __future__ import annotations

import numpy as np

from autograder.inputs import RngSeed, fresh, materialize


def test_a_seed_becomes_a_new_generator_drawing_what_default_rng_draws():
    made = materialize({"rng": RngSeed(5), "rest": (RngSeed(5), 1)})
    assert made["rng"] is not made["rest"][0]
    for generator in (made["rng"], made["rest"][0]):
        np.testing.assert_array_equal(generator.standard_normal(4), np.random.default_rng(5).standard_normal(4))


def test_fresh_copies_arrays_nested_in_tuples_lists_and_dicts():
    inputs = (np.zeros(3), [np.ones(2)], {"mask": np.eye(2, dtype=bool)})
    copied = fresh(inputs)
    copied[0][:] = 7
    copied[1][0][:] = 7
    copied[2]["mask"][:] = False
    np.testing.assert_array_equal(inputs[0], np.zeros(3))
    np.testing.assert_array_equal(inputs[1][0], np.ones(2))
    np.testing.assert_array_equal(inputs[2]["mask"], np.eye(2, dtype=bool))
    assert type(copied) is tuple and type(copied[1]) is list and type(copied[2]) is dict


def test_fresh_makes_generators_and_keeps_immutable_values():
    seed, text = RngSeed(11), "axis"
    copied = fresh((seed, 3, -1.5, None, True, text, np.float32(2)))
    assert isinstance(copied[0], np.random.Generator)
    np.testing.assert_array_equal(copied[0].random(3), np.random.default_rng(11).random(3))
    assert copied[1:] == (3, -1.5, None, True, text, np.float32(2))
    assert copied[5] is text


def test_fresh_deep_copies_anything_else():
    class Box:
        def __init__(self):
            self.items = [np.arange(3)]

    box = Box()
    copied = fresh(box)
    copied.items[0][:] = 0
    np.testing.assert_array_equal(box.items[0], np.arange(3))
