"""Spare workers: taken once each, replaced when spares are on, never left running.

The mechanics are checked at the ``none`` level, where a batch keeps spares (under bwrap
for a root grader a batch forks workers instead: see test_zygote.py).
"""

import pytest

from autograder.config import Defaults
from autograder.sandbox import spares
from autograder.sandbox.launcher import NONE, detect_isolation

LIMITS = Defaults(call_timeout_s=2.0)


@pytest.fixture(autouse=True)
def no_spares_after():
    yield
    spares.keep_spares(False)


def test_without_spares_each_take_starts_a_new_worker_and_keeps_none():
    worker = spares.take_worker(LIMITS, detect_isolation())
    try:
        assert worker.alive()
        assert spares._spares == {}
    finally:
        worker.kill()
        worker.close_pipes()


def test_with_spares_the_next_take_gets_the_started_spare():
    isolation = NONE
    spares.keep_spares(True)
    first = spares.take_worker(LIMITS, isolation)
    spare = spares._spares[(LIMITS, isolation)]
    second = spares.take_worker(LIMITS, isolation)
    try:
        assert second is spare and second is not first
        assert spares._spares[(LIMITS, isolation)] is not spare
    finally:
        for worker in (first, second):
            worker.kill()
            worker.close_pipes()


def test_a_dead_spare_is_replaced():
    isolation = NONE
    spares.keep_spares(True)
    first = spares.take_worker(LIMITS, isolation)
    spare = spares._spares[(LIMITS, isolation)]
    spare.kill()
    second = spares.take_worker(LIMITS, isolation)
    try:
        assert second is not spare and second.alive()
    finally:
        for worker in (first, second):
            worker.kill()
            worker.close_pipes()


def test_turning_spares_off_kills_them():
    isolation = NONE
    spares.keep_spares(True)
    worker = spares.take_worker(LIMITS, isolation)
    spare = spares._spares[(LIMITS, isolation)]
    spares.keep_spares(False)
    try:
        assert not spare.alive() and spares._spares == {}
    finally:
        worker.kill()
        worker.close_pipes()


def test_prestart_leaves_one_worker_for_the_next_take_even_with_spares_off():
    isolation = detect_isolation()
    spares.prestart(LIMITS, isolation)
    started = spares._spares[(LIMITS, isolation)]
    worker = spares.take_worker(LIMITS, isolation)
    try:
        assert worker is started and spares._spares == {}
    finally:
        worker.kill()
        worker.close_pipes()
